import fs from "fs";
import { join } from './path-utils.js';

/** Reads a file as text. */
function readText(name) {
  return fs.readFileSync(join(".", name), "utf8");
}

export class Cache {
  size = 0;

  get(key) {
    return this.map[key];
  }

  set(key, value) {
    this.map[key] = value;
  }
}

// Doubles a number.
export const double = (n) => n * 2;

const triple = function (n) {
  return n * 3;
};

export default class Store {
  load() {
    return readText("store.json");
  }
}

console.log(double(2));
