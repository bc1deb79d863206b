import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WrkRequest {
  url: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** API tokens used in turn, one per request; one token means every request on the same key. */
  tokens: readonly string[];
  headers?: Record<string, string>;
  body?: string;
  /** A header given a value of its own on every request (a random prefix per run, then the request's number): an Idempotency-Key. */
  uniqueHeader?: string;
  /**
   * Records written in turn, their ids appended to `url`'s path. With `ifMatch`, each is sent with
   * its current entity tag in If-Match: the one given to begin with, then the one each 200 answer brings.
   */
  records?: { tags: Readonly<Record<string, string>>; ifMatch: boolean };
}

export interface WrkSettings {
  threads: number;
  connections: number;
  seconds: number;
}

export interface LoadFigures {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

const lua = (value: string) => JSON.stringify(value); // a JSON string literal is a valid Lua string literal here (ASCII)

/*
 * The script rotates the tokens over the requests, and prints the figures as JSON at the end,
 * failing the run when any answer was not 2xx (a benchmark of error pages flatters nobody).
 */
function script(request: WrkRequest): string {
  const headers = Object.entries(request.headers ?? {})
    .map(([name, value]) => `headers[${lua(name)}] = ${lua(value)}`)
    .join('\n');
  const tagged = Object.entries(request.records?.tags ?? {});
  const ifMatch = request.records?.ifMatch === true;
  // Each record's next write comes long after its previous answer: many records for 16 connections.
  const recordTable = tagged.length === 0 ? '' : `
local ids = { ${tagged.map(([id]) => lua(id)).join(', ')} }
local tags = { ${tagged.map(([id, tag]) => `[${lua(id)}] = ${lua(tag)}`).join(', ')} }`;
  const tagFromAnswer = !ifMatch ? '' : `
response = function(status, answerHeaders, answerBody)
  local id = answerBody and answerBody:match('"id":"([^"]+)"')
  local tag = answerHeaders["ETag"] or answerHeaders["etag"]
  if status == 200 and id and tag then tags[id] = tag end
end`;
  return `
local tokens = { ${request.tokens.map(lua).join(', ')} }
local count = 0
local path = ${lua(new URL(request.url).pathname)}
local body = ${request.body === undefined ? 'nil' : lua(request.body)}
local headers = {}
${headers}
${recordTable}
${tagFromAnswer}
request = function()
  count = count + 1
  headers["Authorization"] = "Bearer " .. tokens[(count % #tokens) + 1]
  local target = path
  ${request.uniqueHeader ? `headers[${lua(request.uniqueHeader)}] = ${lua(randomUUID())} .. "-" .. count` : ''}
  ${tagged.length > 0 ? 'local id = ids[(count % #ids) + 1]; target = path .. id' : ''}
  ${ifMatch ? 'headers["If-Match"] = tags[id]' : ''}
  return wrk.format(${lua(request.method)}, target, headers, body)
end
done = function(summary, latency, requests)
  io.write(string.format('\\nWRK-JSON {"requests":%d,"durationUs":%d,"non2xx":%d,"errors":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

/** One wrk run (Debian's `wrk`): requests per second and latency percentiles, in ms. */
export async function wrk(request: WrkRequest, settings: WrkSettings): Promise<LoadFigures> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const scriptPath = join(folder, 'script.lua');
  writeFileSync(scriptPath, script(request));
  try {
    const stdout = await new Promise<string>((resolveRun, reject) => {
      execFile(
        'wrk',
        [`-t${settings.threads}`, `-c${settings.connections}`, `-d${settings.seconds}s`, '--latency', '-s', scriptPath, request.url],
        { maxBuffer: 16 * 1024 * 1024 },
        (error, out) => (error ? reject(new Error(`wrk failed: ${error.message} (install it with: apt-get install -y wrk)`)) : resolveRun(out)),
      );
    });
    const line = stdout.split('\n').find((text) => text.startsWith('WRK-JSON '));
    if (!line) throw new Error(`wrk printed no figures:\n${stdout}`);
    const figures = JSON.parse(line.slice('WRK-JSON '.length)) as { requests: number; durationUs: number; non2xx: number; errors: number; p50: number; p99: number };
    if (figures.non2xx > 0 || figures.errors > 0) {
      throw new Error(`${request.method} ${request.url}: ${figures.non2xx} answers were not 2xx and ${figures.errors} failed`);
    }
    return {
      requests: figures.requests,
      requestsPerSecond: figures.requests / (figures.durationUs / 1e6),
      p50: figures.p50 / 1000,
      p99: figures.p99 / 1000,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
