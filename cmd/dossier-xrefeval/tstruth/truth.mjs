#!/usr/bin/env node
// truth.mjs writes the true call edges of a TypeScript / JavaScript
// repository, from the TypeScript checker, in the truth format of
// cmd/dossier-xrefeval (see README.md here):
//
//   {"repo", "commit", "lang": "typescript", "defs": [{path, line, name, container, kind}],
//    "edges": [{caller, callee, line}]}
//
// A call, `new`, tagged template or JSX element is an edge when the name it
// calls resolves (through imports, aliases and re-exports) to a definition
// in the repository's own source: the symbol the checker gives the callee's
// name, or, for a union or an otherwise synthetic member, the declaration of
// the resolved signature (checker.getResolvedSignature) when it carries the
// same name. Overloads map to the implementation (else the first
// declaration). The caller is the innermost named definition around the call.
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const usage = `usage: node truth.mjs --repo DIR [--name owner/name] [--tsconfig FILE] [--files all|tsconfig]
                        [--typescript DIR] [--exclude SUBSTR]... [-o OUT.json]
  --repo        the repository's work tree (a git checkout)
  --name        owner/name written as "repo" (default: the directory name)
  --tsconfig    the config whose compilerOptions are used (default DIR/tsconfig.json;
                a solution-style config with only "references" uses its first reference)
  --files       all: every git-tracked .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs file dossier
                would index (default); tsconfig: the config's own file list
  --typescript  the typescript package directory (default: resolved from NODE_PATH or the
                working directory); it must be TypeScript 5 or 6 (7 has no compiler API)
  --exclude     skip paths containing SUBSTR (repeatable)
  -o            output file (default stdout)`;

function parseArgs(argv) {
  const a = { exclude: [], files: "all" };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) fail(`${k} needs a value\n${usage}`);
      return argv[++i];
    };
    switch (k) {
      case "--repo": a.repo = v(); break;
      case "--name": a.name = v(); break;
      case "--tsconfig": a.tsconfig = v(); break;
      case "--files": a.files = v(); break;
      case "--typescript": a.typescript = v(); break;
      case "--exclude": a.exclude.push(v()); break;
      case "-o": a.out = v(); break;
      case "-h": case "--help": console.log(usage); process.exit(0);
      default: fail(`unknown argument ${k}\n${usage}`);
    }
  }
  if (!a.repo) fail(`--repo is required\n${usage}`);
  if (a.files !== "all" && a.files !== "tsconfig") fail(`--files must be all or tsconfig, not ${a.files}`);
  return a;
}

function fail(msg) {
  console.error(`truth.mjs: ${msg}`);
  process.exit(2);
}

function loadTypeScript(dir) {
  const req = createRequire(path.join(process.cwd(), "noop.js"));
  let ts;
  try {
    ts = dir ? req(path.resolve(dir)) : req("typescript");
  } catch (e) {
    fail(`cannot load typescript (${e.message}); npm install typescript@5 into a scratch dir and pass --typescript DIR/node_modules/typescript or set NODE_PATH=DIR/node_modules`);
  }
  if (typeof ts.createProgram !== "function") {
    fail(`typescript ${ts.version ?? "?"} has no compiler API (TypeScript 7 is native); install typescript@5`);
  }
  return ts;
}

const args = parseArgs(process.argv.slice(2));
const ts = loadTypeScript(args.typescript);
const repo = path.resolve(args.repo);
if (!fs.statSync(repo, { throwIfNoEntry: false })?.isDirectory()) fail(`--repo ${repo} is not a directory`);

const git = (...a) => execFileSync("git", ["-C", repo, ...a], { encoding: "utf8", maxBuffer: 1 << 28 });
const commit = git("rev-parse", "HEAD").trim();

// Paths dossier's discover skips by default (index/discover defaultIgnores).
const dirIgnores = ["node_modules", "bower_components", ".next", ".nuxt", ".git", ".dossier"];
const rootIgnores = ["dist/", "build/", "target/", "out/", "coverage/", "bin/", "obj/"];
const srcExt = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const declExt = /\.d\.(ts|mts|cts)$|\.d\.[^/]*\.ts$/;

function indexed(rel) {
  if (!srcExt.test(rel) || declExt.test(rel) || rel.endsWith(".min.js")) return false;
  const parts = rel.split("/");
  if (parts.some((p) => dirIgnores.includes(p))) return false;
  if (rootIgnores.some((p) => rel.startsWith(p))) return false;
  if (args.exclude.some((s) => rel.includes(s))) return false;
  const st = fs.statSync(path.join(repo, rel), { throwIfNoEntry: false });
  return !!st && st.isFile() && st.size <= 1 << 20;
}

function readConfig(file) {
  const raw = ts.readConfigFile(file, ts.sys.readFile);
  if (raw.error) fail(`${file}: ${ts.flattenDiagnosticMessageText(raw.error.messageText, "\n")}`);
  const parsed = ts.parseJsonConfigFileContent(raw.config, ts.sys, path.dirname(file), undefined, file);
  const solution = !raw.config.compilerOptions && Array.isArray(raw.config.references) && raw.config.references.length;
  if (solution) {
    let ref = path.resolve(path.dirname(file), raw.config.references[0].path);
    if (fs.statSync(ref, { throwIfNoEntry: false })?.isDirectory()) ref = path.join(ref, "tsconfig.json");
    return readConfig(ref);
  }
  return parsed;
}

const cfgFile = args.tsconfig ? path.resolve(args.tsconfig) : path.join(repo, "tsconfig.json");
const cfg = fs.existsSync(cfgFile) ? readConfig(cfgFile) : null;
if (args.files === "tsconfig" && !cfg) fail(`--files tsconfig but ${cfgFile} does not exist`);

const options = {
  ...(cfg ? cfg.options : { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }),
  allowJs: true,
  checkJs: false,
  noEmit: true,
  skipLibCheck: true,
  composite: false,
  declaration: false,
  types: [],
};
if (options.jsx === undefined) options.jsx = ts.JsxEmit.Preserve;

let roots;
if (args.files === "tsconfig") {
  roots = cfg.fileNames.filter((f) => indexed(path.relative(repo, f).split(path.sep).join("/")));
} else {
  roots = git("ls-files", "-z").split("\0").filter(indexed).map((rel) => path.join(repo, rel));
}
const program = ts.createProgram({ rootNames: roots, options });
const checker = program.getTypeChecker();

const rootSet = new Set(roots.map((f) => path.normalize(f)));
const relOf = (sf) => path.relative(repo, sf.fileName).split(path.sep).join("/");
const own = (sf) => rootSet.has(path.normalize(sf.fileName));

// ---- definitions ----

// nameText is the name of a declaration as dossier shows it (#m for a
// private method); undefined for a computed or string name.
function nameText(n) {
  if (!n) return undefined;
  if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) return n.text;
  return undefined;
}

function unwrap(e) {
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression?.(e) ||
    ts.isTypeAssertionExpression(e) || ts.isNonNullExpression(e))) e = e.expression;
  return e;
}
const isFn = (e) => !!e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));

// inFunctionBody reports whether n sits inside a function's body (then it
// is a local, not a definition a selector can name).
function inFunctionBody(n) {
  for (let p = n.parent; p; p = p.parent) {
    if (ts.isFunctionLike(p) && !ts.isClassLike(p)) return true;
    if (ts.isClassLike(p) && p !== n) {
      // A class's members are definitions when the class is one.
      return inFunctionBody(p);
    }
  }
  return false;
}

// boundObject returns the variable name an object literal initialises at
// definition scope, undefined otherwise.
function boundObject(obj) {
  let e = obj;
  while (e.parent && (ts.isParenthesizedExpression(e.parent) || ts.isAsExpression(e.parent) ||
    ts.isSatisfiesExpression?.(e.parent) || ts.isTypeAssertionExpression(e.parent))) e = e.parent;
  const v = e.parent;
  if (v && topLevelVar(v) && v.initializer === e) return v.name.text;
  return undefined;
}

function className(c) {
  if (c.name) return c.name.text;
  // const X = class { ... }
  const v = c.parent;
  if (v && ts.isVariableDeclaration(v) && ts.isIdentifier(v.name)) return v.name.text;
  return undefined;
}

// namespaceOf is the namespace a top-level declaration sits in ("" for
// none, or an ambient `declare module "x"`).
function namespaceOf(d) {
  for (let p = d.parent; p; p = p.parent) {
    if (ts.isModuleDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  }
  return "";
}

// topLevelVar reports a variable of a const/let/var statement outside any
// function body (not a loop's or a catch's).
function topLevelVar(d) {
  return ts.isVariableDeclaration(d) && ts.isIdentifier(d.name) && d.parent && ts.isVariableDeclarationList(d.parent) &&
    d.parent.parent && ts.isVariableStatement(d.parent.parent) && !inFunctionBody(d);
}

// describeDef says what definition node d is: {name, container, kind, nameNode}
// or undefined when it is none. It follows index/xref's JavaScript extractor:
// what a selector can name from outside a function body.
function describeDef(d) {
  const sf = d.getSourceFile();
  if (!own(sf)) return undefined;
  if (ts.isFunctionDeclaration(d)) {
    const name = nameText(d.name);
    if (!name || inFunctionBody(d)) return undefined;
    return { name, container: namespaceOf(d), kind: "function", nameNode: d.name };
  }
  if (topLevelVar(d)) {
    const init = unwrap(d.initializer);
    if (init && ts.isClassExpression(init)) return undefined; // the class is the definition
    let kind = d.parent.flags & ts.NodeFlags.Const ? "const" : "var";
    if (isFn(init)) kind = "function";
    else if (init && ts.isObjectLiteralExpression(init)) kind = "object";
    return { name: d.name.text, container: namespaceOf(d), kind, nameNode: d.name };
  }
  if (ts.isClassDeclaration(d) || ts.isClassExpression(d)) {
    const name = className(d);
    if (!name || inFunctionBody(d)) return undefined;
    if (ts.isClassExpression(d) && !topLevelVar(d.parent)) return undefined;
    return { name, container: namespaceOf(d), kind: "class", nameNode: d.name ?? d.parent.name };
  }
  const parent = d.parent;
  if (parent && ts.isClassLike(parent)) {
    const container = className(parent);
    if (!container || inFunctionBody(parent)) return undefined;
    if (ts.isClassExpression(parent) && !topLevelVar(parent.parent)) return undefined;
    if (ts.isConstructorDeclaration(d)) {
      const kw = d.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
      return { name: "constructor", container, kind: "method", nameNode: kw ?? d };
    }
    const name = nameText(d.name);
    if (!name) return undefined;
    if (ts.isMethodDeclaration(d) || ts.isGetAccessorDeclaration(d) || ts.isSetAccessorDeclaration(d)) {
      return { name, container, kind: "method", nameNode: d.name };
    }
    if (ts.isPropertyDeclaration(d)) {
      return { name, container, kind: isFn(unwrap(d.initializer)) ? "method" : "field", nameNode: d.name };
    }
    return undefined;
  }
  if (ts.isParameter(d) && parent && ts.isConstructorDeclaration(parent) && ts.isIdentifier(d.name) &&
    ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.ParameterPropertyModifier)) {
    // constructor(private repo: Repo)
    const cls = parent.parent;
    const container = className(cls);
    if (!container || inFunctionBody(cls)) return undefined;
    return { name: d.name.text, container, kind: "field", nameNode: d.name };
  }
  if (parent && ts.isObjectLiteralExpression(parent)) {
    const container = boundObject(parent);
    const name = nameText(d.name);
    if (!container || !name) return undefined;
    if (ts.isMethodDeclaration(d) || ts.isGetAccessorDeclaration(d) || ts.isSetAccessorDeclaration(d) ||
      (ts.isPropertyAssignment(d) && isFn(unwrap(d.initializer)))) {
      return { name, container, kind: "method", nameNode: d.name };
    }
    return undefined;
  }
  if ((ts.isMethodSignature(d) || ts.isPropertySignature(d)) && parent) {
    // Members of interfaces and of `type X = { m(): void }`.
    let container;
    if (ts.isInterfaceDeclaration(parent)) container = parent.name.text;
    else if (ts.isTypeLiteralNode(parent) && ts.isTypeAliasDeclaration(parent.parent)) container = parent.parent.name.text;
    else if (ts.isTypeLiteralNode(parent) && ts.isIntersectionTypeNode(parent.parent) && ts.isTypeAliasDeclaration(parent.parent.parent)) container = parent.parent.parent.name.text;
    const name = nameText(d.name);
    if (!container || !name || inFunctionBody(parent)) return undefined;
    return { name, container, kind: ts.isMethodSignature(d) ? "interface method" : "field", nameNode: d.name };
  }
  return undefined;
}

const defs = [];
const defIndex = new Map(); // definition node -> index in defs

// isOverloadSignature reports a body-less declaration that has a sibling
// with a body: the implementation is the definition.
function isOverloadSignature(d) {
  if (d.body || !(ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d))) return false;
  const sym = d.name ? checker.getSymbolAtLocation(d.name) : undefined;
  return !!sym?.declarations?.some((o) => o !== d && o.kind === d.kind && o.parent === d.parent && o.body);
}

function collectDefs(sf) {
  const walk = (n) => {
    const desc = describeDef(n);
    if (desc && !defIndex.has(n) && !isOverloadSignature(n)) {
      const line = sf.getLineAndCharacterOfPosition(desc.nameNode.getStart(sf)).line + 1;
      defIndex.set(n, defs.length);
      defs.push({ path: relOf(sf), line, name: desc.name, container: desc.container, kind: desc.kind });
    }
    ts.forEachChild(n, walk);
  };
  walk(sf);
}

// defOf maps a declaration the checker names as a callee to its definition.
function defOf(d) {
  if (!d) return undefined;
  // const X = class { ... }: the class is the definition.
  if (ts.isVariableDeclaration(d) && d.initializer && ts.isClassExpression(unwrap(d.initializer))) d = unwrap(d.initializer);
  // `new C()` resolves to C's constructor: the edge goes to the class.
  if (ts.isConstructorDeclaration(d)) d = d.parent;
  if (ts.isArrowFunction(d) || ts.isFunctionExpression(d)) {
    // The signature of `const f = () => ...` or `m = () => ...` is the arrow itself.
    let p = d.parent;
    while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression?.(p))) p = p.parent;
    if (!p || !(ts.isVariableDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p)) || unwrap(p.initializer) !== d) return undefined;
    d = p;
  }
  if (!defIndex.has(d) && isOverloadSignature(d)) {
    const sym = checker.getSymbolAtLocation(d.name);
    d = sym.declarations.find((o) => o.kind === d.kind && o.parent === d.parent && o.body);
  }
  return defIndex.get(d);
}

// ---- edges ----

function aliased(sym) {
  if (sym && sym.flags & ts.SymbolFlags.Alias) {
    try {
      return checker.getAliasedSymbol(sym);
    } catch {
      return sym;
    }
  }
  return sym;
}

// calleeName returns the node naming what a call calls: f, the m of x.m or
// x.#m, the tag of a JSX element; undefined for anything else.
function calleeName(e) {
  e = unwrap(e);
  if (!e) return undefined;
  if (ts.isIdentifier(e)) return e;
  if (ts.isPropertyAccessExpression(e)) return e.name;
  return undefined;
}

function calleeDef(node, nameNode) {
  const name = nameNode.text;
  const sym = aliased(checker.getSymbolAtLocation(nameNode));
  if (sym && sym.declarations && sym.declarations.length) {
    let decls = sym.declarations.filter((d) => own(d.getSourceFile()));
    if (ts.isNewExpression(node)) {
      const cls = decls.filter((d) => ts.isClassLike(d));
      if (cls.length) decls = cls;
    }
    // The implementation of an overload set, else the first that is a definition.
    const withBody = decls.filter((d) => d.body);
    for (const d of [...withBody, ...decls]) {
      const i = defOf(d);
      if (i !== undefined) return i;
    }
    if (!(sym.flags & ts.SymbolFlags.Transient)) return undefined;
  }
  if (ts.isJsxOpeningLikeElement(node) || ts.isTaggedTemplateExpression(node)) return undefined;
  let sig;
  try {
    sig = checker.getResolvedSignature(node);
  } catch {
    return undefined;
  }
  const i = defOf(sig?.declaration);
  if (i !== undefined && defs[i].name === name) return i;
  if (i !== undefined && ts.isNewExpression(node) && defs[i].kind === "class" && defs[i].name === name) return i;
  return undefined;
}

// callerOf returns the innermost named definition around n.
function callerOf(n) {
  for (let p = n.parent; p; p = p.parent) {
    const i = defIndex.get(p);
    if (i !== undefined) return i;
  }
  return undefined;
}

const callable = new Set(["function", "method", "class", "interface method"]);
const edges = [];
const seen = new Set();

function visit(sf, n) {
  let nameNode;
  if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
    if (n.expression.kind !== ts.SyntaxKind.SuperKeyword && n.expression.kind !== ts.SyntaxKind.ImportKeyword) nameNode = calleeName(n.expression);
  } else if (ts.isTaggedTemplateExpression(n)) {
    nameNode = calleeName(n.tag);
  } else if (ts.isJsxSelfClosingElement(n) || ts.isJsxOpeningElement(n)) {
    const t = n.tagName;
    if ((ts.isIdentifier(t) && /^[A-Z]/.test(t.text)) || ts.isPropertyAccessExpression(t)) nameNode = calleeName(t);
  }
  if (nameNode) {
    const callee = calleeDef(n, nameNode);
    // A call through a field or variable (of a function type) is dynamic:
    // the edge is to whatever function it holds, which no name shows.
    if (callee !== undefined && callable.has(defs[callee].kind)) {
      const caller = callerOf(n);
      if (caller !== undefined) {
        const line = sf.getLineAndCharacterOfPosition(nameNode.getStart(sf)).line + 1;
        const key = `${caller}:${callee}:${line}`;
        if (!seen.has(key)) {
          seen.add(key);
          edges.push({ caller, callee, line });
        }
      }
    }
  }
  ts.forEachChild(n, (c) => visit(sf, c));
}

const sources = program.getSourceFiles().filter(own);
for (const sf of sources) collectDefs(sf);
for (const sf of sources) visit(sf, sf);

const out = JSON.stringify({
  repo: args.name ?? path.basename(repo),
  commit,
  lang: "typescript",
  defs,
  edges,
});
if (args.out) fs.writeFileSync(args.out, out + "\n");
else process.stdout.write(out + "\n");
console.error(`truth.mjs: ${roots.length} files, ${defs.length} defs, ${edges.length} edges (typescript ${ts.version})`);
