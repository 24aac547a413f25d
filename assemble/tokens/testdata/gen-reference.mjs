// gen-reference.mjs writes reference.json: token counts (and, for small
// texts, token ids) computed by OpenAI's reference tokenizer, tiktoken, whose
// Rust core the npm package "tiktoken" ships compiled to WASM with the
// vocabularies embedded. The Go tests in assemble/tokens compare against it.
//
// Run it from a scratch directory OUTSIDE the repository, so node_modules
// never lands in the repo:
//
//   mkdir -p /tmp/tiktok && cd /tmp/tiktok
//   npm init -y >/dev/null && npm install tiktoken@1.0.22
//   node /path/to/repo/assemble/tokens/testdata/gen-reference.mjs
//
// The package is resolved from the current directory, not from this file's.
// Corpus files are read as bytes and decoded the way a browser or Node does
// (invalid UTF-8 becomes U+FFFD per maximal subpart), then encoded with
// encode_ordinary, so text such as "<|endoftext|>" counts as plain text.

import { createRequire } from "node:module";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const want = "1.0.22";
const require = createRequire(path.join(process.cwd(), "noop.cjs"));
const pkgDir = path.dirname(require.resolve("tiktoken"));
const version = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
if (version !== want) {
  console.error(`tiktoken ${version} found in ${pkgDir}; install tiktoken@${want} there`);
  process.exit(1);
}
const { get_encoding } = require("tiktoken");

const here = path.dirname(fileURLToPath(import.meta.url));
const corpusDir = path.join(here, "corpus");
const encodings = ["o200k_base", "cl100k_base"];
const enc = Object.fromEntries(encodings.map((e) => [e, get_encoding(e)]));
const decoder = new TextDecoder("utf-8"); // fatal: false -> U+FFFD replacement

// Files up to this size also record their ids, so a Go mismatch can be traced
// to the exact token.
const idsMaxBytes = 400;

const files = {};
for (const name of readdirSync(corpusDir).sort()) {
  const bytes = readFileSync(path.join(corpusDir, name));
  const text = decoder.decode(bytes);
  const entry = { bytes: bytes.length };
  for (const e of encodings) {
    const ids = Array.from(enc[e].encode_ordinary(text));
    entry[e] = ids.length;
    if (bytes.length <= idsMaxBytes) {
      entry.ids ??= {};
      entry.ids[e] = ids;
    }
  }
  files[name] = entry;
}

// Short random strings built from atoms that stress the pre-tokenizer:
// letter-case classes, marks, contractions, digits, whitespace kinds, "/".
// mulberry32 keeps them identical on every run.
function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const atoms = [
  "a", "b", "Z", "Q", "hello", "World", "HTTP", "Server", "x", "é", "É",
  "ß", "ǅ", "ʰ", "中", "文", "ا", "ש", "ก", "\u0301", "\u0308", "\u0e31",
  "'", "'s", "'S", "'t", "'re", "'VE", "'m", "'ll", "'LL", "'d", "'ſ", "'x",
  "0", "1", "12", "123", "4567", "٣", "½", "²", "Ⅻ", "①",
  " ", " ", "  ", "\t", "\n", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\u2028",
  "\u0085", "\u000b", "\u001c", "\u200b",
  "/", "//", "/*", "*/", ".", ",", ";", "{", "}", "(", ")", "[", "]", "<", ">",
  "=", "==", "!", "?", "-", "_", "#", "@", "$", "%", "&", "*", "+", "|", "\\",
  "\"", "`", "~", "^", ":", "…", "—", "“", "€", "™", "🚀", "👍🏽", "\ufffd",
  "<|endoftext|>",
];
const rand = mulberry32(20240531);
const strings = [];
for (let i = 0; i < 400; i++) {
  const n = 1 + Math.floor(rand() * 14);
  let text = "";
  for (let j = 0; j < n; j++) text += atoms[Math.floor(rand() * atoms.length)];
  const entry = { text };
  for (const e of encodings) entry[e] = Array.from(enc[e].encode_ordinary(text));
  strings.push(entry);
}

for (const e of encodings) enc[e].free();

const out = {
  generator: `npm tiktoken@${version} encode_ordinary`,
  files,
  strings,
};
// One file or string per line keeps diffs of regenerated output readable.
const lines = [];
lines.push("{");
lines.push(` "generator": ${JSON.stringify(out.generator)},`);
lines.push(' "files": {');
const names = Object.keys(files);
names.forEach((name, i) => {
  const comma = i < names.length - 1 ? "," : "";
  lines.push(`  ${JSON.stringify(name)}: ${JSON.stringify(files[name])}${comma}`);
});
lines.push(" },");
lines.push(' "strings": [');
strings.forEach((s, i) => {
  lines.push(`  ${JSON.stringify(s)}${i < strings.length - 1 ? "," : ""}`);
});
lines.push(" ]");
lines.push("}");
writeFileSync(path.join(here, "reference.json"), lines.join("\n") + "\n");
console.log(`wrote ${Object.keys(files).length} files and ${strings.length} strings`);
