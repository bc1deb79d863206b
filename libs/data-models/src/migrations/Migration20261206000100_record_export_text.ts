import { Migration } from '@mikro-orm/migrations';

/**
 * Functions the export's statements use to write records as CSV and NDJSON text in the database,
 * byte for byte as the API writes them in JavaScript (export-text.ts has the hot path inline; these
 * cover numbers written with an exponent, lists, objects and related titles).
 *
 * A number is written as JavaScript writes the double nearest to it: PostgreSQL's float8 output
 * has the same shortest digits, but switches to an exponent at other magnitudes, and pads it
 * (`1e-07`). Object members come in the order JSON.parse gives them: integer-like keys first, in
 * numeric order, then the stored order. float8 output must have its default extra_float_digits
 * (1: the shortest exact digits), which no connection of the pool changes.
 */
export class Migration20261206000100_record_export_text extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE FUNCTION data_models_js_exponent_text(shortest text) RETURNS text
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
      DECLARE
        unsigned text := ltrim(shortest, '-');
        digits text := replace(split_part(unsigned, 'e', 1), '.', '');
        places int := length(digits);
        point int := split_part(unsigned, 'e', 2)::int + 1;
        candidate text;
        body text;
      BEGIN
        -- From 2^53 up, a midpoint between two doubles can be a whole number of fewer digits, which
        -- JavaScript takes (parsing it gives this double, ties going to even) and PostgreSQL does not.
        WHILE point >= 16 AND places > 1 LOOP
          candidate := left(digits, places - 1);
          IF (candidate || repeat('0', point - places + 1))::numeric::float8 <> unsigned::float8 THEN
            candidate := (candidate::numeric + 1)::text;
            -- Past the largest double, rounding up is no candidate.
            IF (candidate || repeat('0', point - places + 1))::numeric > 1.7976931348623157e308
              OR (candidate || repeat('0', point - places + 1))::numeric::float8 <> unsigned::float8 THEN
              EXIT;
            END IF;
            point := point + length(candidate) - (places - 1);
          END IF;
          digits := rtrim(candidate, '0');
          places := length(digits);
        END LOOP;
        IF places <= point AND point <= 21 THEN
          body := digits || repeat('0', point - places);
        ELSIF 0 < point AND point <= 21 THEN
          body := left(digits, point) || '.' || substr(digits, point + 1);
        ELSIF -6 < point AND point <= 0 THEN
          body := '0.' || repeat('0', -point) || digits;
        ELSE
          body := left(digits, 1) || CASE WHEN places > 1 THEN '.' || substr(digits, 2) ELSE '' END
            || 'e' || CASE WHEN point > 0 THEN '+' ELSE '-' END || abs(point - 1)::text;
        END IF;
        RETURN CASE WHEN shortest LIKE '-%' THEN '-' ELSE '' END || body;
      END
      $fn$`);
    this.addSql(`
      CREATE FUNCTION data_models_js_number_text(value text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT CASE WHEN strpos(value::float8::text, 'e') = 0 THEN value::float8::text ELSE data_models_js_exponent_text(value::float8::text) END
      $fn$`);
    this.addSql(`
      CREATE FUNCTION data_models_js_json(value jsonb) RETURNS text
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
      BEGIN
        RETURN CASE jsonb_typeof(value)
          WHEN 'number' THEN data_models_js_number_text(value #>> '{}')
          WHEN 'object' THEN '{' || COALESCE((
            SELECT string_agg(to_json(member.key)::text || ':' || data_models_js_json(member.value), ',' ORDER BY
              CASE WHEN member.key ~ '^(0|[1-9][0-9]{0,9})$' THEN CASE WHEN member.key::bigint < 4294967295 THEN member.key::bigint END END,
              member.position)
            FROM jsonb_each(value) WITH ORDINALITY AS member(key, value, position)), '') || '}'
          WHEN 'array' THEN '[' || COALESCE((
            SELECT string_agg(data_models_js_json(item.value), ',' ORDER BY item.position)
            FROM jsonb_array_elements(value) WITH ORDINALITY AS item(value, position)), '') || ']'
          ELSE value::text
        END;
      END
      $fn$`);
    // String(value) of JavaScript: what an expanded relation takes for an id that is not a string.
    this.addSql(`
      CREATE FUNCTION data_models_js_string(value jsonb) RETURNS text
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
      BEGIN
        CASE jsonb_typeof(value)
          WHEN 'string' THEN RETURN value #>> '{}';
          WHEN 'number' THEN RETURN data_models_js_number_text(value #>> '{}');
          WHEN 'object' THEN RETURN '[object Object]';
          WHEN 'array' THEN
            RETURN COALESCE((
              SELECT string_agg(CASE WHEN jsonb_typeof(item.value) = 'null' THEN '' ELSE data_models_js_string(item.value) END, ',' ORDER BY item.position)
              FROM jsonb_array_elements(value) WITH ORDINALITY AS item(value, position)), '');
          ELSE RETURN value::text;
        END CASE;
      END
      $fn$`);
    // A cell as RFC 4180 writes it: quoted, its quotes doubled, when it holds a quote, comma or line break.
    this.addSql(`
      CREATE FUNCTION data_models_csv_cell(value text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT CASE WHEN strpos(value, '"') > 0 OR strpos(value, ',') > 0 OR strpos(value, chr(10)) > 0 OR strpos(value, chr(13)) > 0
          THEN '"' || replace(value, '"', '""') || '"' ELSE value END
      $fn$`);
    // Text a spreadsheet would run as a formula gets a leading quote.
    this.addSql(`
      CREATE FUNCTION data_models_csv_guard(value text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT CASE WHEN ascii(value) IN (61, 43, 45, 64, 9, 13) THEN '''' || value ELSE value END
      $fn$`);
    // csvValue of export-csv.ts: a related record ({id, title}) as its title or id, a list of them as JSON of those, anything else as JSON.
    this.addSql(`
      CREATE FUNCTION data_models_csv_value(value jsonb) RETURNS text
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      BEGIN
        CASE jsonb_typeof(value)
          WHEN 'string' THEN RETURN data_models_csv_guard(value #>> '{}');
          WHEN 'number' THEN RETURN data_models_js_number_text(value #>> '{}');
          WHEN 'boolean' THEN RETURN value::text;
          WHEN 'object' THEN
            IF jsonb_typeof(value -> 'id') = 'string' THEN
              RETURN data_models_csv_value(COALESCE(NULLIF(value -> 'title', 'null'::jsonb), value -> 'id'));
            END IF;
          WHEN 'array' THEN
            IF NOT EXISTS (
              SELECT FROM jsonb_array_elements(value) AS item(value)
              WHERE jsonb_typeof(item.value) <> 'object' OR jsonb_typeof(item.value -> 'id') IS DISTINCT FROM 'string'
            ) THEN
              RETURN '[' || COALESCE((
                SELECT string_agg(data_models_js_json(COALESCE(NULLIF(item.value -> 'title', 'null'::jsonb), item.value -> 'id')), ',' ORDER BY item.position)
                FROM jsonb_array_elements(value) WITH ORDINALITY AS item(value, position)), '') || ']';
            END IF;
          ELSE RETURN '';
        END CASE;
        RETURN data_models_csv_guard(data_models_js_json(value));
      END
      $fn$`);
    // The cells export-text.ts writes through a function (so that planning each page does not inline them again).
    this.addSql(`
      CREATE FUNCTION data_models_csv_value_cell(value jsonb) RETURNS text
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      BEGIN
        RETURN data_models_csv_cell(data_models_csv_value(value));
      END
      $fn$`);
    // A list relation with expand: each id's title where the caller may read it ({id: title} in titles), else the id.
    this.addSql(`
      CREATE FUNCTION data_models_csv_related_list(ids jsonb, titles jsonb) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT '[' || COALESCE(string_agg(to_json(COALESCE(titles ->> item.id, item.id))::text, ',' ORDER BY item.position), '') || ']'
        FROM jsonb_array_elements(ids) WITH ORDINALITY AS element(value, position), LATERAL (SELECT data_models_js_string(element.value) AS id, element.position) AS item
      $fn$`);
    this.addSql(`
      CREATE FUNCTION data_models_csv_related_cell(ids jsonb, titles jsonb) RETURNS text
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      BEGIN
        RETURN data_models_csv_cell(data_models_csv_related_list(ids, titles));
      END
      $fn$`);
    this.addSql(`
      CREATE FUNCTION data_models_json_related_list(ids jsonb, titles jsonb) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT '[' || COALESCE(string_agg(
          '{"id":' || to_json(item.id)::text || CASE WHEN jsonb_exists(titles, item.id) THEN ',"title":' || data_models_js_json(titles -> item.id) ELSE '' END || '}',
          ',' ORDER BY item.position), '') || ']'
        FROM jsonb_array_elements(ids) WITH ORDINALITY AS element(value, position), LATERAL (SELECT data_models_js_string(element.value) AS id, element.position) AS item
      $fn$`);
  }

  override async down(): Promise<void> {
    this.addSql(`DROP FUNCTION data_models_json_related_list(jsonb, jsonb), data_models_csv_related_cell(jsonb, jsonb), data_models_csv_related_list(jsonb, jsonb),
      data_models_csv_value_cell(jsonb), data_models_csv_value(jsonb),
      data_models_csv_guard(text), data_models_csv_cell(text), data_models_js_string(jsonb), data_models_js_json(jsonb), data_models_js_number_text(text), data_models_js_exponent_text(text)`);
  }
}
