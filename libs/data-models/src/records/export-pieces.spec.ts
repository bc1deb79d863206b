import { ExportPieces, PIECE_BYTES } from './export-pieces';

describe('ExportPieces', () => {
  const written = (lines: string[]) => {
    const pieces = new ExportPieces();
    for (const line of lines) pieces.add(line);
    return pieces.finish();
  };

  it('keeps every byte of every line, in order, whatever the characters', () => {
    const lines = Array.from({ length: 5_000 }, (_, index) => `${index},naïve ☃ 😀 "q",${'x'.repeat(index % 97)}\r\n`);
    const { pieces, bytes } = written(lines);
    expect(Buffer.concat(pieces).toString()).toBe(lines.join(''));
    expect(bytes).toBe(Buffer.byteLength(lines.join('')));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(PIECE_BYTES);
  });

  it('never splits a line between pieces', () => {
    const lines = Array.from({ length: 3_000 }, (_, index) => `line ${index} ${'é'.repeat(index % 300)}\n`);
    for (const piece of written(lines).pieces) expect(piece.toString().endsWith('\n')).toBe(true);
  });

  it('writes a line longer than a piece as a piece of its own, between the others', () => {
    const long = `${'😀'.repeat(PIECE_BYTES)}\n`;
    const { pieces } = written(['a\n', long, 'b\n']);
    expect(pieces.map((piece) => piece.toString())).toEqual(['a\n', long, 'b\n']);
  });

  it('answers no pieces for no lines', () => {
    expect(written([])).toEqual({ pieces: [], bytes: 0 });
  });
});
