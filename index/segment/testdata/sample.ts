import { EventEmitter } from "events";

/** A user record. */
export interface User {
  id: number;
  name: string;
  greet(): string;
}

export type UserId = number | string;

export enum Role {
  Admin,
  Guest,
}

export namespace Auth {
  export function check(u: User): boolean {
    return u.id > 0;
  }
}

export class Service extends EventEmitter {
  private users: User[] = [];

  add(u: User): void {
    this.users.push(u);
  }
}

export const find = (id: UserId): User | undefined => undefined;

export default function main(): void {
  new Service();
}
