/** About the bytes of one piece of an export: written to the socket as one chunk. */
export const PIECE_BYTES = 128 * 1024;

/** The most UTF-8 bytes one UTF-16 code unit of a string takes. */
const MAX_BYTES_PER_CODE_UNIT = 3;

/**
 * An export page's lines, written into pieces of bytes (Buffers, outside V8's heap) the moment
 * each is made, so no line's string outlives its row: a young collection during an export finds
 * nothing of it to keep, and nothing of it is promoted to grow the old space (decision 164).
 */
export class ExportPieces {
  private readonly pieces: Buffer[] = [];
  private piece: Buffer | undefined;
  private used = 0;
  private bytes = 0;

  add(line: string): void {
    const most = line.length * MAX_BYTES_PER_CODE_UNIT;
    if (this.piece && this.used + most > this.piece.length) this.endPiece();
    if (!this.piece) {
      if (most > PIECE_BYTES) {
        // A line longer than a piece is a piece of its own.
        const own = Buffer.from(line);
        this.pieces.push(own);
        this.bytes += own.length;
        return;
      }
      this.piece = Buffer.allocUnsafe(PIECE_BYTES);
    }
    this.used += this.piece.write(line, this.used);
  }

  /** The pieces, in order, and their bytes; nothing may be added after. */
  finish(): { pieces: Buffer[]; bytes: number } {
    this.endPiece();
    return { pieces: this.pieces, bytes: this.bytes };
  }

  private endPiece(): void {
    if (!this.piece) return;
    if (this.used > 0) {
      this.pieces.push(this.piece.subarray(0, this.used));
      this.bytes += this.used;
    }
    this.piece = undefined;
    this.used = 0;
  }
}
