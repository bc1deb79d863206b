import { parseCsvText, type ParsedCsv } from './csv-text';

/** What the worker answers: the parsed file, or why it could not be read. */
export type CsvWorkerAnswer = { ok: true; csv: ParsedCsv } | { ok: false; message: string };

interface WorkerScope {
  onmessage: ((event: MessageEvent<File>) => void) | null;
  postMessage(message: CsvWorkerAnswer): void;
}

// Parsing a large file takes long enough to freeze a page, so it happens here, off the main thread.
const scope = self as unknown as WorkerScope;
scope.onmessage = (event) => {
  event.data.text().then(
    (text) => scope.postMessage({ ok: true, csv: parseCsvText(text) }),
    (error: unknown) => scope.postMessage({ ok: false, message: error instanceof Error ? error.message : 'The file could not be read' }),
  );
};
