import type { Schema } from "./schema";

/** visit walks a schema. */
export function visit(schema: Schema, fn: Fn): Schema;
export function visit(schema: Schema, handlers: Handlers): Schema;

// The implementation.
export function visit(schema: Schema, f: Fn | Handlers): Schema {
  return schema;
}

export declare function hash(s: string): number;

declare global {
  interface Window {
    ky: unknown;
  }
}

export interface Errors {
  format(): string;
  /** format with a mapper (a comment the cursor names "interface_body"). */
  format<U>(mapper: (m: string) => U): U;
}

export abstract class Base {
  abstract run(): void;
  partial(): Base;
  partial(mask: string): Base;
  partial(mask?: string): Base {
    return this;
  }
}
