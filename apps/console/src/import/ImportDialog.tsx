import './import.css';
import { useMemo, useRef, useState, type ChangeEvent } from 'react';
import { formatCount } from '../app/format';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import type { DataField } from '../data-models/types';
import { useSignedIn } from '../session/session-context';
import { downloadText } from '../export/download-file';
import { badRowsCsv } from './bad-rows';
import { ColumnMapper } from './ColumnMapper';
import { importableFields, mapColumns, remapColumn, type ColumnMapping } from './column-mapping';
import type { ParsedCsv } from './csv-text';
import { parseCsvFile } from './parse-csv-file';
import { lookUpTitles, titlesToFind, type ModelTitles } from './relation-titles';
import { checkRows, spreadsheetRow, type RowsChecked } from './row-check';
import { timed, timedNow } from './import-timing';
import { RowErrors } from './RowErrors';
import { BatchRefused, sendInBatches } from './send-batches';

export interface ImportDialogProps {
  modelKey: string;
  modelName: string;
  fields: readonly DataField[];
  /** `imported`: how many records now exist that did not before. */
  onClose(imported: number): void;
}

type Step =
  | { kind: 'pick'; parsing: boolean }
  | { kind: 'map' }
  | { kind: 'checking'; titles: number }
  | { kind: 'checked'; checked: RowsChecked }
  | { kind: 'sending'; created: number; total: number }
  | { kind: 'done'; created: number; total: number; cancelled: boolean; refused?: BatchRefused };

const SAMPLE_ROWS = 3;

/**
 * Imports a CSV file into a model: pick the file (parsed in a worker), map its columns to fields,
 * check every row in the browser with the record rules, fix or leave out the bad rows, then send
 * the rest in batches with a progress bar and a cancel button. Nothing is sent before the check
 * passes for every row that is sent.
 */
export default function ImportDialog({ modelKey, modelName, fields, onClose }: ImportDialogProps) {
  const { rpc } = useSignedIn();
  const targets = useMemo(() => importableFields(fields), [fields]);
  const [step, setStep] = useState<Step>({ kind: 'pick', parsing: false });
  const [fileName, setFileName] = useState('');
  const [csv, setCsv] = useState<ParsedCsv>();
  const [mapping, setMapping] = useState<ColumnMapping>([]);
  const [failure, setFailure] = useState<unknown>();
  const cancel = useRef<AbortController | undefined>(undefined);
  /** Related records' titles looked up so far, kept while the dialog is open. */
  const knownTitles = useRef(new Map<string, ModelTitles>());

  const imported = step.kind === 'done' ? step.created : 0;
  const close = () => onClose(imported);
  const unmappedRequired = targets.filter((field) => field.required && !mapping.includes(field.key));
  const nameOf = (key: string) => fields.find((field) => field.key === key)?.name ?? key;

  const pickFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    setFailure(undefined);
    setFileName(file.name);
    setStep({ kind: 'pick', parsing: true });
    try {
      const parsed = await timed('parse', () => parseCsvFile(file));
      if (parsed.headers.length === 0 || parsed.rows.length === 0) throw new Error('The file has no rows under its header row.');
      setCsv(parsed);
      setMapping(mapColumns(parsed.headers, targets));
      setStep({ kind: 'map' });
    } catch (error) {
      setFailure(error);
      setStep({ kind: 'pick', parsing: false });
    }
  };

  const check = async (rows = csv?.rows) => {
    if (!rows) return;
    setFailure(undefined);
    // Related records named by title are found first, a batch of titles per request.
    const wanted = titlesToFind(fields, mapping, rows);
    const count = [...wanted.values()].reduce((sum, titles) => sum + titles.size, 0);
    try {
      if (count > 0) setStep({ kind: 'checking', titles: count });
      const titles = await lookUpTitles(rpc, wanted, knownTitles.current);
      setStep({ kind: 'checked', checked: timedNow('check', () => checkRows(fields, mapping, rows, titles)) });
    } catch (error) {
      setFailure(error);
      setStep({ kind: 'map' });
    }
  };

  const fix = (row: number, column: number, text: string) => {
    setCsv((current) => {
      if (!current) return current;
      const rows = current.rows.slice();
      const cells = (rows[row] ?? []).slice();
      cells[column] = text;
      rows[row] = cells;
      return { ...current, rows };
    });
  };

  const send = async (checked: RowsChecked) => {
    const records = checked.valid.map(({ data }) => data);
    const controller = new AbortController();
    cancel.current = controller;
    setStep({ kind: 'sending', created: 0, total: records.length });
    try {
      const outcome = await timed('send', () =>
        sendInBatches({
        rpc,
        model: modelKey,
        records,
        signal: controller.signal,
          onProgress: ({ created, total }) => setStep({ kind: 'sending', created, total }),
        }),
      );
      setStep({ kind: 'done', created: outcome.created, total: records.length, cancelled: outcome.cancelled });
    } catch (error) {
      if (error instanceof BatchRefused) setStep({ kind: 'done', created: error.created, total: records.length, cancelled: false, refused: error });
      else {
        setFailure(error);
        setStep({ kind: 'done', created: 0, total: records.length, cancelled: false });
      }
    }
  };

  const sending = step.kind === 'sending';
  const footer = (() => {
    switch (step.kind) {
      case 'pick':
        return (
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
        );
      case 'map':
        return (
          <>
            <button type="button" className="button" onClick={close}>
              Cancel
            </button>
            <button type="button" className="button button-primary" disabled={unmappedRequired.length > 0} onClick={() => void check()}>
              Check {formatCount(csv?.rows.length ?? 0)} rows
            </button>
          </>
        );
      case 'checked': {
        const { valid, invalid } = step.checked;
        return (
          <>
            <button type="button" className="button" onClick={() => setStep({ kind: 'map' })}>
              Back to columns
            </button>
            {invalid.length > 0 ? (
              <button type="button" className="button" onClick={() => void check()}>
                Check again
              </button>
            ) : null}
            <button type="button" className="button button-primary" disabled={valid.length === 0} onClick={() => void send(step.checked)}>
              {invalid.length > 0
                ? `Leave out ${formatCount(invalid.length)} ${invalid.length === 1 ? 'row' : 'rows'} and import ${formatCount(valid.length)}`
                : `Import ${formatCount(valid.length)} ${valid.length === 1 ? 'record' : 'records'}`}
            </button>
          </>
        );
      }
      case 'checking':
        return (
          <button type="button" className="button button-primary" disabled>
            Checking…
          </button>
        );
      case 'sending':
        return (
          <button type="button" className="button" onClick={() => cancel.current?.abort()} disabled={cancel.current?.signal.aborted}>
            Cancel import
          </button>
        );
      case 'done':
        return (
          <button type="button" className="button button-primary" onClick={close}>
            Close
          </button>
        );
    }
  })();

  return (
    <Dialog open title={`Import CSV into ${modelName}`} onClose={close} busy={sending} footer={footer}>
      <div className="import-dialog">
        <ErrorNotice error={failure} />
        {step.kind === 'pick' ? (
          <div className="field">
            <label htmlFor="import-file">CSV file</label>
            <p className="field-hint">The first row names the columns. Comma, semicolon and tab separated files are read alike.</p>
            <input id="import-file" type="file" accept=".csv,text/csv,text/plain" onChange={(event) => void pickFile(event)} disabled={step.parsing} data-autofocus />
            {step.parsing ? <p role="status">Reading {fileName}…</p> : null}
          </div>
        ) : null}

        {step.kind === 'map' && csv ? (
          <>
            <p>
              <strong>{fileName}</strong>: {formatCount(csv.rows.length)} rows. Choose the field each column fills; columns are matched by field key or name.
              {targets.some((field) => field.type === 'RELATION') ? ' A relation column takes the related record’s id or its exact title (any case).' : ''}
            </p>
            {csv.problems.length > 0 ? (
              <div className="notice notice-warning">
                <p className="notice-title">Some lines did not read cleanly</p>
                <ul className="compact-list">
                  {csv.problems.slice(0, 5).map((problem, index) => (
                    <li key={index}>
                      {problem.row === null ? '' : `Row ${spreadsheetRow(problem.row)}: `}
                      {problem.message}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
            <ColumnMapper
              headers={csv.headers}
              samples={csv.rows.slice(0, SAMPLE_ROWS)}
              fields={targets}
              mapping={mapping}
              onChange={(column, key) => setMapping((current) => remapColumn(current, column, key))}
            />
            {unmappedRequired.length > 0 ? (
              <p className="field-error" role="alert">
                Choose a column for {unmappedRequired.map((field) => field.name).join(', ')}: every record needs it.
              </p>
            ) : null}
          </>
        ) : null}

        {step.kind === 'checking' ? (
          <p role="status">
            Finding the related records named by title ({formatCount(step.titles)} {step.titles === 1 ? 'title' : 'titles'})…
          </p>
        ) : null}

        {step.kind === 'checked' && csv ? (
          <>
            <p role="status">
              {formatCount(step.checked.valid.length)} {step.checked.valid.length === 1 ? 'row is' : 'rows are'} ready to import.
              {step.checked.invalid.length > 0
                ? ` ${formatCount(step.checked.invalid.length)} ${step.checked.invalid.length === 1 ? 'row has' : 'rows have'} errors: correct them below and check again, or leave them out. Nothing is sent until you choose.`
                : ' Every row passed the checks.'}
            </p>
            {step.checked.invalid.length > 0 ? (
              <>
                <RowErrors headers={csv.headers} rows={csv.rows} invalid={step.checked.invalid} fields={fields} onFix={fix} />
                <p>
                  <button
                    type="button"
                    className="button button-small"
                    onClick={() => downloadText(`${modelKey}-rows-with-errors.csv`, badRowsCsv(csv.headers, csv.rows, step.checked.invalid, nameOf))}
                  >
                    Download the rows with errors (CSV)
                  </button>
                </p>
              </>
            ) : null}
          </>
        ) : null}

        {step.kind === 'sending' ? (
          <div className="import-progress">
            <label htmlFor="import-progress">
              Imported {formatCount(step.created)} of {formatCount(step.total)} records
            </label>
            <progress id="import-progress" max={step.total} value={step.created} />
            <p className="field-hint">Records are sent 1,000 at a time; a cancel stops before the next thousand.</p>
          </div>
        ) : null}

        {step.kind === 'done' ? (
          <div role="status" className={`notice ${step.refused || failure ? 'notice-warning' : ''}`}>
            <p className="notice-title">
              Imported {formatCount(step.created)} of {formatCount(step.total)} records.
            </p>
            {step.cancelled ? <p>The import was cancelled: the rest were not sent.</p> : null}
            {step.refused ? (
              <>
                <p>The server refused a batch, so it and the batches after it were not imported:</p>
                <ul className="compact-list">
                  {step.refused.rows.slice(0, 5).map(({ index, detail }) => (
                    <li key={`${index}-${detail.field}`}>
                      Record {index + 1}: {detail.message}
                    </li>
                  ))}
                </ul>
                <ErrorNotice error={step.refused.rows.length === 0 ? step.refused.refusal : undefined} />
              </>
            ) : null}
          </div>
        ) : null}
      </div>
    </Dialog>
  );
}
