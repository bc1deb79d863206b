import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The fleet's network: one Linux bridge in the root namespace, and each host a network namespace
 * of its own joined to it by a veth pair (`eth0` inside, `flt-<host>` on the bridge). The root
 * namespace (the test, the load balancer) holds the bridge's address and reaches every host.
 */
const NAMESPACE_PREFIX = 'fleet-';
const LINK_PREFIX = 'flt-';
const BRIDGE = `${LINK_PREFIX}br`;
const SUBNET = '10.231.77';
export const BRIDGE_ADDRESS = `${SUBNET}.1`;
export const FLEET_CIDR = `${SUBNET}.0/24`;

export interface FleetHost {
  name: string;
  namespace: string;
  address: string;
  /** Its end of the veth pair in the root namespace, on the bridge: down cuts the host off. */
  link: string;
}

export function fleetHost(name: string, lastOctet: number): FleetHost {
  // Interface names are at most 15 characters.
  if (`${LINK_PREFIX}${name}`.length > 15) throw new Error(`host name ${name} is too long for an interface name`);
  return { name, namespace: `${NAMESPACE_PREFIX}${name}`, address: `${SUBNET}.${lastOctet}`, link: `${LINK_PREFIX}${name}` };
}

async function ip(...args: string[]): Promise<string> {
  return (await run('ip', args)).stdout;
}

/** The command prefix that runs a program in `host`'s namespace, keeping its process id. */
export function inNamespace(host: FleetHost): string[] {
  return ['ip', 'netns', 'exec', host.namespace];
}

/** The bridge and every host's namespace, addresses and route, all up. */
export async function createNetwork(hosts: readonly FleetHost[]): Promise<void> {
  await ip('link', 'add', BRIDGE, 'type', 'bridge');
  await ip('addr', 'add', `${BRIDGE_ADDRESS}/24`, 'dev', BRIDGE);
  await ip('link', 'set', BRIDGE, 'up');
  for (const host of hosts) {
    await ip('netns', 'add', host.namespace);
    await ip('link', 'add', host.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.namespace);
    await ip('link', 'set', host.link, 'master', BRIDGE, 'up');
    await ip('-n', host.namespace, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0');
    await ip('-n', host.namespace, 'link', 'set', 'eth0', 'up');
    await ip('-n', host.namespace, 'link', 'set', 'lo', 'up');
    await ip('-n', host.namespace, 'route', 'add', 'default', 'via', BRIDGE_ADDRESS);
  }
}

/** Cuts `host` off the fleet (its veth down: packets dropped, no reset sent) or joins it again. */
export async function setLink(host: FleetHost, up: boolean): Promise<void> {
  await ip('link', 'set', host.link, up ? 'up' : 'down');
}

/**
 * Removes every fleet namespace, link and bridge, this run's or one left by a run that was
 * killed: the processes still running in a fleet namespace (all started by a fleet run) are
 * SIGKILLed by their ids first. Safe to call when nothing is there.
 */
export async function removeNetwork(): Promise<void> {
  const namespaces = (await ip('netns', 'list'))
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter((name) => name.startsWith(NAMESPACE_PREFIX));
  for (const namespace of namespaces) {
    const pids = (await ip('netns', 'pids', namespace).catch(() => ''))
      .split('\n')
      .map((line) => Number.parseInt(line, 10))
      .filter((pid) => Number.isInteger(pid) && pid > 0);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await ip('netns', 'delete', namespace).catch(() => undefined);
  }
  const links = (await ip('-o', 'link', 'show'))
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1])
    .filter((name): name is string => name?.startsWith(LINK_PREFIX) ?? false);
  // The bridge last: deleting a veth end deletes its peer, and the bridge frees its ports.
  for (const link of links.sort((a, b) => Number(a === BRIDGE) - Number(b === BRIDGE))) {
    await ip('link', 'delete', link).catch(() => undefined);
  }
}
