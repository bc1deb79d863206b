import type { DataField } from './types';

/** A field's settings in a few words, for the fields table. */
export function configSummary(field: DataField): string {
  const config = field.config;
  const parts: string[] = [];
  const has = (key: string) => config[key] !== undefined && config[key] !== null;
  switch (field.type) {
    case 'TEXT':
    case 'LONG_TEXT':
    case 'RICH_TEXT':
      if (has('maxLength')) parts.push(`at most ${String(config['maxLength'])} characters`);
      break;
    case 'NUMBER':
      if (has('min')) parts.push(`min ${String(config['min'])}`);
      if (has('max')) parts.push(`max ${String(config['max'])}`);
      if (has('precision')) parts.push(config['precision'] === 0 ? 'whole numbers' : `${String(config['precision'])} decimals`);
      break;
    case 'DATETIME':
      if (Array.isArray(config['reminders'])) parts.push(`reminders ${config['reminders'].join(', ')} min before`);
      break;
    case 'SELECT':
    case 'MULTI_SELECT':
      if (Array.isArray(config['options'])) {
        parts.push((config['options'] as Array<{ label?: string; value: string }>).map((option) => option.label ?? option.value).join(', '));
      }
      if (has('maxSelected')) parts.push(`at most ${String(config['maxSelected'])}`);
      break;
    case 'RELATION':
      parts.push(`→ ${String(config['targetModel'])}${config['multiple'] === true ? ' (several)' : ''}`);
      break;
    case 'FORMULA':
      parts.push(`${String(config['expression'])} → ${String(config['resultType'])}`);
      break;
    case 'FILE':
    case 'ATTACHMENTS':
      if (Array.isArray(config['allowedMimeTypes'])) parts.push(config['allowedMimeTypes'].join(', '));
      if (has('maxSizeBytes')) parts.push(`≤ ${String(config['maxSizeBytes'])} bytes`);
      if (has('maxFiles')) parts.push(`at most ${String(config['maxFiles'])} files`);
      break;
    default:
      break;
  }
  return parts.join('; ');
}
