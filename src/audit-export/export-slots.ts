/**
 * How many exports one process runs at once; the others wait their turn. Each holds a page of the audit
 * log in memory and an upload in flight, so a few at a time keep the process well within its memory cap.
 */
export class ExportSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit = 2) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
