/** Violations a run found, each tied to the step after which it was seen. */
export interface Violation { step: number; check: string; detail: string }

export class Findings {
  readonly list: Violation[] = [];
  step = 0;

  add(check: string, detail: string): void {
    this.list.push({ step: this.step, check, detail });
  }
}
