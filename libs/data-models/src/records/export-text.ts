import { isLive, type FieldShape } from '../models/model-store';
import { jsonValue, rawText } from '../query/field-expressions';
import { joinSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import { expandedTitlesColumn } from './relation-expansion';

/**
 * The SQL that writes each exported record as its line of text, so the database hands over each
 * record as its finished line instead of values to format here. Every line is byte for byte
 * what export-csv.ts (csvRecord) or JSON.stringify of the list's item writes for the same record;
 * export-text.spec.ts holds the two to that. The hot path (strings, numbers, booleans, related
 * titles) is written inline; lists, objects and numbers written with an exponent go through the
 * functions of Migration20261206000100_record_export_text.
 */
export interface ExportLineSql {
  /** Output columns the list query adds (each field's JSON type and text, read once). */
  columns: SqlFragment;
  /** The line, an expression over the list query's row, aliased `listed`. */
  line: SqlFragment;
  /** The id of the record a line was written for (each format writes it first). */
  recordIdOf(line: string): string;
}

const UUID_LENGTH = 36;

export interface ExportLayout {
  modelKey: string;
  /** The model's fields, in order (archived ones included: they are left out here). */
  fields: readonly FieldShape[];
  /** The `fields` keys asked for; undefined: every field. */
  selected: ReadonlySet<string> | undefined;
  /** The relation fields expanded, in the order of the list query's title columns. */
  expanded: readonly FieldShape[] | undefined;
}

/**
 * The field values a line reads, as output columns of the list query: each field's text (`->>`)
 * and, where the line asks for it, its JSON type; one lookup each, however often the line uses
 * them. A type column is computed for every row: a line that needs the type only now and then
 * reads it inline instead (`useText`).
 */
class FieldValues {
  private readonly indexes = new Map<string, { index: number; typed: boolean }>();

  private column(key: string, typed: boolean): number {
    const known = this.indexes.get(key);
    if (known) {
      known.typed ||= typed;
      return known.index;
    }
    const index = this.indexes.size;
    this.indexes.set(key, { index, typed });
    return index;
  }

  use(key: string): { type: SqlFragment; text: SqlFragment; json: SqlFragment } {
    const index = this.column(key, true);
    return { type: trustedSql(`listed.export_type_${index}`), text: trustedSql(`listed.export_text_${index}`), json: jsonValue(key, 'listed.data') };
  }

  /** The text column alone, and the JSON type as an expression to evaluate only where it is needed. */
  useText(key: string): { typeOf: SqlFragment; text: SqlFragment; json: SqlFragment } {
    const index = this.column(key, false);
    const json = jsonValue(key, 'listed.data');
    return { typeOf: sql`jsonb_typeof(${json})`, text: trustedSql(`listed.export_text_${index}`), json };
  }

  columns(): SqlFragment {
    return joinSql(
      [...this.indexes].map(([key, { index, typed }]) => {
        const text = sql`, ${rawText(key)} AS ${trustedSql(`export_text_${index}`)}`;
        return typed ? sql`, jsonb_typeof(${jsonValue(key)}) AS ${trustedSql(`export_type_${index}`)}${text}` : text;
      }),
      '',
    );
  }
}

const titlesOf = (layout: ExportLayout, field: FieldShape): SqlFragment | undefined => {
  const index = layout.expanded?.findIndex((expanded) => expanded.key === field.key) ?? -1;
  return index === -1 ? undefined : trustedSql(`listed.${expandedTitlesColumn(index)}`);
};

/** The first characters (code points) of the text of a number, a list or an object: '-', the digits, '[' and '{'. */
const NOT_A_STRING_STARTS = trustedSql([45, ...Array.from({ length: 10 }, (_, digit) => 48 + digit), 91, 123].join(', '));

/** Whether a value's text (`->>`) may be a number's, a list's or an object's: only then does its JSON type tell more. */
const mayNotBeAString = (text: SqlFragment) => sql`ascii(${text}) IN (${NOT_A_STRING_STARTS})`;

/** csvCell(csvValue(text)) of export-csv.ts for text: a leading `'` where a spreadsheet would see a formula, quoted when it must be. */
function csvText(text: SqlFragment): SqlFragment {
  const guarded = sql`CASE WHEN ascii(${text}) IN (61, 43, 45, 64, 9, 13) THEN '''' || ${text} ELSE ${text} END`;
  // LIKE costs the database less than strpos for these one-character searches.
  return sql`CASE WHEN ${text} LIKE '%"%' OR ${text} LIKE '%,%' OR ${text} LIKE E'%\\n%' OR ${text} LIKE E'%\\r%'
    THEN '"' || replace(${guarded}, '"', '""') || '"' ELSE ${guarded} END`;
}

/** data_models_js_number_text, written out: a SQL function would be inlined again in the planning of every page. */
const jsNumber = (text: SqlFragment) =>
  sql`CASE WHEN strpos(${text}::float8::text, 'e') = 0 THEN ${text}::float8::text ELSE data_models_js_exponent_text(${text}::float8::text) END`;

/** The id expandValue looks a related title up by: String() of the value. */
const relatedId = (type: SqlFragment, text: SqlFragment, json: SqlFragment) => sql`(CASE ${type} WHEN 'string' THEN ${text} ELSE data_models_js_string(${json}) END)`;

function csvCell(values: FieldValues, field: FieldShape | undefined, titles: SqlFragment | undefined): SqlFragment {
  if (!field) return trustedSql("''");
  if (titles) {
    const { type, text, json } = values.use(field.key);
    // expandValue then csvValue: an id becomes its title where the caller may read it, a list of them JSON of those.
    const id = relatedId(type, text, json);
    return sql`CASE WHEN ${type} IS NULL OR ${type} = 'null' THEN ''
      WHEN ${type} = 'array' THEN data_models_csv_related_cell(${json}, ${titles})
      ELSE ${csvText(sql`COALESCE(${titles} ->> ${id}, ${id})`)} END`;
  }
  const { typeOf, text, json } = values.useText(field.key);
  const byType = sql`CASE ${typeOf} WHEN 'string' THEN ${csvText(text)} WHEN 'number' THEN ${jsNumber(text)} WHEN 'boolean' THEN ${text}
    WHEN 'object' THEN data_models_csv_value_cell(${json}) WHEN 'array' THEN data_models_csv_value_cell(${json}) ELSE '' END`;
  // Reading a value's JSON type costs the database more than writing most cells, and only text
  // that may be a number, a list or an object needs it: as PostgreSQL writes those, they begin
  // with a digit, '-', '[' or '{'. Any other text is a string's, or a boolean's (written alike);
  // a field the record lacks, or holds null, has no text (NULL, whose cell is empty).
  return sql`CASE WHEN ${mayNotBeAString(text)} THEN ${byType} ELSE COALESCE(${csvText(text)}, '') END`;
}

/** csvRecord of export-csv.ts for each row: id, the columns' cells, createdAt, updatedAt, CRLF. */
export function csvLineSql(layout: ExportLayout, columns: readonly string[]): ExportLineSql {
  const values = new FieldValues();
  const live = new Map(layout.fields.filter(isLive).map((field) => [field.key, field]));
  const cells = columns.map((key) => {
    const field = live.get(key);
    return csvCell(values, field, field && titlesOf(layout, field));
  });
  const parts = [trustedSql('listed.id::text'), ...cells, trustedSql('listed.created_at'), trustedSql('listed.updated_at')];
  return { columns: values.columns(), line: sql`${joinSql(parts, " || ',' || ")} || E'\\r\\n'`, recordIdOf: (line) => line.slice(0, UUID_LENGTH) };
}

/** JSON.stringify of a field's value as the list answers it (expanded: {id, title} or {id}). */
function jsonMember(values: FieldValues, field: FieldShape, titles: SqlFragment | undefined): SqlFragment {
  const name = sql`${`${JSON.stringify(field.key)}:`}::text`;
  if (titles) {
    const { type, text, json } = values.use(field.key);
    const id = relatedId(type, text, json);
    const value = sql`CASE ${type} WHEN 'null' THEN 'null' WHEN 'array' THEN data_models_json_related_list(${json}, ${titles})
      ELSE '{"id":' || to_json(${id})::text || CASE WHEN jsonb_exists(${titles}, ${id}) THEN ',"title":' || data_models_js_json(${titles} -> ${id}) ELSE '' END || '}' END`;
    // Absent from the record: absent from the line (JSON types are never NULL).
    return sql`CASE WHEN ${type} IS NOT NULL THEN ${name} || ${value} END`;
  }
  const { typeOf, text, json } = values.useText(field.key);
  // Absent from the record: no type, so no member (concat_ws leaves out a NULL).
  const byType = sql`CASE ${typeOf} WHEN 'string' THEN to_json(${text})::text WHEN 'number' THEN ${jsNumber(text)} WHEN 'boolean' THEN ${text} WHEN 'null' THEN 'null'
      ELSE data_models_js_json(${json}) END`;
  // As in csvCell: only text that may be a number, a list or an object needs the type, and here
  // also a boolean's (written bare, a string's quoted) and no text at all (null, or absent).
  return sql`CASE WHEN ${text} IS NULL OR ${mayNotBeAString(text)} OR ${text} IN ('true', 'false') THEN ${name} || ${byType}
    ELSE ${name} || to_json(${text})::text END`;
}

const jsonText = (expression: string) => trustedSql(`COALESCE(to_json(${expression})::text, 'null')`);

/** JSON.stringify of the list's item (recordOutput, with its relations expanded as expandRelations does) for each row, and a line feed. */
export function ndjsonLineSql(layout: ExportLayout): ExportLineSql {
  const values = new FieldValues();
  const members = layout.fields
    .filter((field) => isLive(field) && (!layout.selected || layout.selected.has(field.key)))
    .map((field) => jsonMember(values, field, titlesOf(layout, field)));
  const data = members.length > 0 ? sql`concat_ws(',', ${joinSql(members, ', ')})` : trustedSql("''");
  const line = sql`'{"id":"' || listed.id::text || ${`","model":${JSON.stringify(layout.modelKey)},"title":`}::text || ${jsonText('listed.title')}
    || ',"data":{' || ${data} || '},"createdAt":"' || listed.created_at || '","updatedAt":"' || listed.updated_at
    || '","createdBy":' || ${jsonText('listed.created_by')} || ',"updatedBy":' || ${jsonText('listed.updated_by')} || E'}\\n'`;
  const idAt = '{"id":"'.length;
  return { columns: values.columns(), line, recordIdOf: (text) => text.slice(idAt, idAt + UUID_LENGTH) };
}
