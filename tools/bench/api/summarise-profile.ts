/**
 * The heaviest functions of a V8 `.cpuprofile`: `tsx tools/bench/api/summarise-profile.ts <file> [count] [skip-seconds]`.
 * With skip-seconds, the samples of the process's first seconds (start-up: loading and compiling
 * modules) are left out.
 * Self time by function, and inclusive time (the function and what it called) by function and by
 * package, each as a share of the samples in which the process was not idle.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds from the previous sample (the first: from the profile's start). */
  timeDeltas: number[];
}

// Samples in a socket write are mostly the kernel's loopback work and preemption by the woken peer, not JavaScript.
const IDLE = new Set(['(idle)', '(program)', '(garbage collector)', ...(process.env.PROFILE_WITH_WRITES ? [] : ['writev', 'writeBuffer', 'writeUtf8String'])]);

function where(node: ProfileNode): string {
  const url = node.callFrame.url.replace(/^file:\/\//, '');
  const modules = url.lastIndexOf('node_modules/');
  const short = modules >= 0 ? url.slice(modules + 'node_modules/'.length) : url.replace(/^.*?\/(apps|libs|tools)\//, '$1/');
  return `${node.callFrame.functionName || '(anonymous)'} ${short}:${node.callFrame.lineNumber + 1}`;
}

function packageOf(node: ProfileNode): string {
  const url = node.callFrame.url;
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  const own = /\/((?:apps|libs)\/[^/]+)\//.exec(url);
  if (own) return own[1];
  if (url.startsWith('node:')) return 'node';
  return node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : url || '(native)';
}

function main(): void {
  const [file, countText, skipText] = process.argv.slice(2);
  if (!file) throw new Error('usage: summarise-profile.ts <file.cpuprofile> [count] [skip-seconds]');
  const count = Number(countText ?? 30);
  const skipMicroseconds = Number(skipText ?? 0) * 1e6;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  let garbage = 0;
  let elapsed = 0;
  for (const [index, id] of profile.samples.entries()) {
    elapsed += profile.timeDeltas[index] ?? 0;
    if (elapsed < skipMicroseconds) continue;
    const node = byId.get(id);
    if (!node) continue;
    const name = node.callFrame.functionName;
    if (name === '(garbage collector)') garbage++;
    if (IDLE.has(name) && name !== '(garbage collector)') continue;
    busy++;
    self.set(where(node), (self.get(where(node)) ?? 0) + 1);
    const seen = new Set<string>();
    const seenPackages = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (!frame) break;
      const key = where(frame);
      if (!seen.has(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + 1);
      seen.add(key);
      const pkg = packageOf(frame);
      if (!seenPackages.has(pkg)) packages.set(pkg, (packages.get(pkg) ?? 0) + 1);
      seenPackages.add(pkg);
    }
  }
  const share = (value: number) => `${((100 * value) / busy).toFixed(1).padStart(5)} %`;
  const top = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  console.log(`${busy} busy samples (${share(garbage)} garbage collection)\n\nSelf:`);
  for (const [name, value] of top(self)) console.log(`${share(value)}  ${name}`);
  console.log('\nInclusive:');
  for (const [name, value] of top(inclusive)) console.log(`${share(value)}  ${name}`);
  console.log('\nBy package (inclusive):');
  for (const [name, value] of top(packages)) console.log(`${share(value)}  ${name}`);
}

main();
