import type { CsvWorkerAnswer } from './csv-parse.worker';
import type { ParsedCsv } from './csv-text';

/** Parses a CSV file in a Web Worker (papaparse), so the page stays responsive whatever its size. */
export function parseCsvFile(file: File): Promise<ParsedCsv> {
  const worker = new Worker(new URL('./csv-parse.worker.ts', import.meta.url), { type: 'module' });
  return new Promise<ParsedCsv>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<CsvWorkerAnswer>) => {
      if (event.data.ok) resolve(event.data.csv);
      else reject(new Error(event.data.message));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message || 'The file could not be read'));
    };
    worker.postMessage(file);
  }).finally(() => worker.terminate());
}
