/**
 * A few slots for heavy work that one process runs at once, each holding a large piece of data in memory
 * (an export's page of the audit log and its upload, a bulk Check's file and its rows): with a few at a
 * time the process stays well within its memory cap whatever the number of people asking. Work either
 * waits its turn (`run`) or, when it cannot wait, takes a slot only if one is free (`tryTake`).
 */
export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Slots in use now. */
  get inUse(): number {
    return this.running;
  }

  /** Runs `work` in a slot, once one is free (first come, first served). */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      this.handOn();
    }
  }

  /**
   * A slot now, or undefined when all are taken (or promised to work waiting its turn). The slot is held
   * until its `release` is called; calling it again does nothing.
   */
  tryTake(): { release(): void } | undefined {
    if (this.running >= this.limit || this.waiting.length > 0) return undefined;
    this.running += 1;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.handOn();
      },
    };
  }

  /** A slot given back: to the first work waiting, if any. */
  private handOn(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}
