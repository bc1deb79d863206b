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
}

export interface ExportLayout {
  modelKey: string;
  /** The model's fields, in order (archived ones included: they are left out here). */
  fields: readonly FieldShape[];
  /** The `fields` keys asked for; undefined: every field. */
  selected: ReadonlySet<string> | undefined;
  /** The relation fields expanded, in the order of the list query's title columns. */
  expanded: readonly FieldShape[] | undefined;
}

/** The field values a line reads, each as its JSON type and its text (`->>`): one lookup each, however often the line uses them. */
class FieldValues {
  private readonly indexes = new Map<string, number>();

  use(key: string): { type: SqlFragment; text: SqlFragment; json: SqlFragment } {
    let index = this.indexes.get(key);
    if (index === undefined) {
      index = this.indexes.size;
      this.indexes.set(key, index);
    }
    return { type: trustedSql(`listed.export_type_${index}`), text: trustedSql(`listed.export_text_${index}`), json: jsonValue(key, 'listed.data') };
  }

  columns(): SqlFragment {
    return joinSql(
      [...this.indexes].map(([key, index]) => sql`, jsonb_typeof(${jsonValue(key)}) AS ${trustedSql(`export_type_${index}`)}, ${rawText(key)} AS ${trustedSql(`export_text_${index}`)}`),
      '',
    );
  }
}

const titlesOf = (layout: ExportLayout, field: FieldShape): SqlFragment | undefined => {
  const index = layout.expanded?.findIndex((expanded) => expanded.key === field.key) ?? -1;
  return index === -1 ? undefined : trustedSql(`listed.${expandedTitlesColumn(index)}`);
};

/** csvCell(csvValue(text)) of export-csv.ts for text: a leading `'` where a spreadsheet would see a formula, quoted when it must be. */
function csvText(text: SqlFragment): SqlFragment {
  const guarded = sql`CASE WHEN ascii(${text}) IN (61, 43, 45, 64, 9, 13) THEN '''' || ${text} ELSE ${text} END`;
  return sql`CASE WHEN strpos(${text}, '"') > 0 OR strpos(${text}, ',') > 0 OR strpos(${text}, chr(10)) > 0 OR strpos(${text}, chr(13)) > 0
    THEN '"' || replace(${guarded}, '"', '""') || '"' ELSE ${guarded} END`;
}

/** data_models_js_number_text, written out: a SQL function would be inlined again in the planning of every page. */
const jsNumber = (text: SqlFragment) =>
  sql`CASE WHEN strpos(${text}::float8::text, 'e') = 0 THEN ${text}::float8::text ELSE data_models_js_exponent_text(${text}::float8::text) END`;

/** The id expandValue looks a related title up by: String() of the value. */
const relatedId = (type: SqlFragment, text: SqlFragment, json: SqlFragment) => sql`(CASE ${type} WHEN 'string' THEN ${text} ELSE data_models_js_string(${json}) END)`;

function csvCell(values: FieldValues, field: FieldShape | undefined, titles: SqlFragment | undefined): SqlFragment {
  if (!field) return trustedSql("''");
  const { type, text, json } = values.use(field.key);
  if (titles) {
    // expandValue then csvValue: an id becomes its title where the caller may read it, a list of them JSON of those.
    const id = relatedId(type, text, json);
    return sql`CASE WHEN ${type} IS NULL OR ${type} = 'null' THEN ''
      WHEN ${type} = 'array' THEN data_models_csv_related_cell(${json}, ${titles})
      ELSE ${csvText(sql`COALESCE(${titles} ->> ${id}, ${id})`)} END`;
  }
  return sql`CASE ${type} WHEN 'string' THEN ${csvText(text)} WHEN 'number' THEN ${jsNumber(text)} WHEN 'boolean' THEN ${text}
    WHEN 'object' THEN data_models_csv_value_cell(${json}) WHEN 'array' THEN data_models_csv_value_cell(${json}) ELSE '' END`;
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
  return { columns: values.columns(), line: sql`${joinSql(parts, " || ',' || ")} || E'\\r\\n'` };
}

/** JSON.stringify of a field's value as the list answers it (expanded: {id, title} or {id}). */
function jsonMember(values: FieldValues, field: FieldShape, titles: SqlFragment | undefined): SqlFragment {
  const { type, text, json } = values.use(field.key);
  let value: SqlFragment;
  if (titles) {
    const id = relatedId(type, text, json);
    value = sql`CASE ${type} WHEN 'null' THEN 'null' WHEN 'array' THEN data_models_json_related_list(${json}, ${titles})
      ELSE '{"id":' || to_json(${id})::text || CASE WHEN jsonb_exists(${titles}, ${id}) THEN ',"title":' || data_models_js_json(${titles} -> ${id}) ELSE '' END || '}' END`;
  } else {
    value = sql`CASE ${type} WHEN 'string' THEN to_json(${text})::text WHEN 'number' THEN ${jsNumber(text)} WHEN 'boolean' THEN ${text} WHEN 'null' THEN 'null'
      ELSE data_models_js_json(${json}) END`;
  }
  // Absent from the record: absent from the line (JSON types are never NULL).
  return sql`CASE WHEN ${type} IS NOT NULL THEN ${`${JSON.stringify(field.key)}:`}::text || ${value} END`;
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
  return { columns: values.columns(), line };
}
