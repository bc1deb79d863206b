import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Puts `section` (starting with its own "## " heading) into the markdown file: it replaces the
 * section with the same heading, up to the next "## " heading, or is appended. Other sections,
 * written by other benchmarks, are left exactly as they are.
 */
export function writeSection(path: string, section: string): void {
  const heading = section.split('\n', 1)[0];
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const lines = current.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading.trim());
  let next: string;
  if (start === -1) {
    next = `${current.trimEnd()}\n\n${section.trimEnd()}\n`;
  } else {
    const after = lines.findIndex((line, index) => index > start && line.startsWith('## '));
    const end = after === -1 ? lines.length : after;
    const before = lines.slice(0, start).join('\n').trimEnd();
    const rest = lines.slice(end).join('\n').trim();
    next = `${before}\n\n${section.trimEnd()}\n${rest ? `\n${rest}\n` : ''}`;
  }
  writeFileSync(path, next);
}
