import {
  type Page,
  chromium,
} from "playwright";

export function top(): number {
  return 1;
}

export class Box {
  open(): void {}
}

export interface Made {
  new (x: number): Made;
}

test("x", () => {
  class Local {
    m() {}
  }
});
