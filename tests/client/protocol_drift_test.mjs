#!/usr/bin/env node
// Holds @parlor/client (client-ts/) to protocol/PROTOCOL.md, so neither can drift from the
// other: every request, reply and push type the protocol's reference names is a type of the
// package and every type of the package is named there; each request's reply type agrees;
// the error codes of the Errors table and of the games' rejection tables are exactly the
// package's ERROR_CODES and GAME_ERROR_CODES; the room statuses are ROOM_STATUSES.
//
// The package is compiled first (tsc, into a temporary directory), so a type and its
// run-time list that disagree fail here too. A few seconds.
//
//   node tests/client/protocol_drift_test.mjs [--protocol FILE] [--package DIR]

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const args = process.argv.slice(2);
function arg(name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 ? path.resolve(args[i + 1]) : fallback;
}
const protocolFile = arg('--protocol', path.join(root, 'protocol/PROTOCOL.md'));
const packageDir = arg('--package', path.join(root, 'client-ts'));

// The TypeScript compiler: the package's own (npm ci in client-ts), else the web client's.
function findTsc() {
  for (const dir of [packageDir, path.join(root, 'client-ts'), path.join(root, 'client-web')]) {
    const tsc = path.join(dir, 'node_modules/typescript/bin/tsc');
    if (fs.existsSync(tsc)) return tsc;
  }
  console.error('no TypeScript compiler: run `npm ci` in client-ts (deploy/install-deps.sh does)');
  process.exit(1);
}

async function loadPackage() {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'parlor-client-ts-'));
  try {
    try {
      execFileSync(process.execPath, [findTsc(), '-p', packageDir, '--outDir', out, '--declaration', 'false'], { stdio: 'pipe' });
    } catch (err) {
      console.error(`client-ts does not compile:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      process.exit(1);
    }
    // The output is ES modules; the directory needs to say so for Node to load it.
    fs.writeFileSync(path.join(out, 'package.json'), '{"type":"module"}\n');
    return await import(pathToFileURL(path.join(out, 'index.js')).href);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Reading PROTOCOL.md

// The document cut at its "## " headings: [{ title, text }].
function sections(md) {
  const out = [];
  let current = { title: '', text: '' };
  for (const line of md.split('\n')) {
    if (/^## /.test(line)) {
      out.push(current);
      current = { title: line.slice(3).trim(), text: '' };
    }
    current.text += `${line}\n`;
  }
  out.push(current);
  return out;
}

// Message types in a text: `{"type":"X"` that opens a message, not a value nested in one
// (an option's `"NAME":{"type":"integer"` is not a message).
function messageTypes(text) {
  const found = [];
  const re = /(^|[^:\w"])\{"type":"([a-z_]+)"/g;
  for (let m; (m = re.exec(text));) found.push(m[2]);
  return found;
}

// Every single-line message snippet (a code span, or a line of a code block) with its type.
function snippets(text) {
  const out = [];
  for (const m of text.matchAll(/`(\{"type":"([a-z_]+)"[^`]*)`/g)) out.push({ text: m[1], type: m[2] });
  for (const block of text.matchAll(/```json\n([\s\S]*?)```/g)) {
    for (const line of block[1].split('\n')) {
      const m = /^\s*(\{"type":"([a-z_]+)".*)$/.exec(line);
      if (m) out.push({ text: m[1], type: m[2], block: block[1] });
    }
  }
  return out;
}

// The first cells (in backticks) of the rows of the markdown tables in `text` whose header's
// first cell is `header`.
function tableKeys(text, header) {
  const keys = [];
  let inTable = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) { inTable = false; continue; }
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells[0] === header) { inTable = true; continue; }
    if (!inTable || /^-+$/.test(cells[0])) continue;
    const m = /^`([a-z_]+)`$/.exec(cells[0]);
    if (m) keys.push(m[1]);
  }
  return keys;
}

function readProtocol(md) {
  const parts = sections(md);
  const games = parts.find((s) => s.title === 'Games');
  const errors = parts.find((s) => s.title === 'Errors');
  const lobby = parts.find((s) => s.title === 'Lobby');
  const transport = parts.find((s) => s.title === 'Transport');
  if (!games || !errors || !lobby || !transport) throw new Error('PROTOCOL.md lacks a "Transport", "Lobby", "Games" or "Errors" section');
  const protocolText = parts.filter((s) => s !== games).map((s) => s.text).join('');

  // The lobby table: requests on the left, their success replies on the right.
  const pairs = [];
  for (const line of lobby.text.split('\n')) {
    if (!line.startsWith('| `{"type"')) continue;
    const [left, right] = line.split(' | ');
    const reply = messageTypes(right)[0];
    for (const request of messageTypes(left)) pairs.push({ request, reply, where: 'the Lobby table' });
  }
  // `{"type":"legal_moves",...}` → `{"type":"legal_moves",...}`
  for (const m of protocolText.matchAll(/`\{"type":"([a-z_]+)"[^`]*`\s*→\s*`\{"type":"([a-z_]+)"/g)) {
    pairs.push({ request: m[1], reply: m[2], where: `"${m[0].slice(0, 40)}…"` });
  }
  // A code block with a request carrying "id":N and its reply carrying "re":N.
  const requests = new Set(pairs.map((p) => p.request));
  const replies = new Set(pairs.map((p) => p.reply));
  for (const s of snippets(protocolText)) {
    const id = /"id":("[^"]*"|\d+)/.exec(s.text);
    const re = /"re":("[^"]*"|\d+|ID)/.exec(s.text);
    if (id) {
      requests.add(s.type);
      const answer = s.block && snippets(`\`\`\`json\n${s.block}\`\`\``).find((o) => o.text.includes(`"re":${id[1]}`));
      if (answer) pairs.push({ request: s.type, reply: answer.type, where: `the example ${s.text.slice(0, 40)}…` });
    }
    if (re) replies.add(s.type);
  }

  // "The server also sends **pushes**: `room`, `state`, `chat` and `game_over`."
  const pushSentence = /\*\*pushes\*\*:([^.]*)\./.exec(transport.text);
  const pushes = pushSentence ? [...pushSentence[1].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]) : [];

  // The room statuses: the room summary's `status` bullet, and list_rooms's status filter.
  const statusLists = [];
  const summary = /^- `status` is ([\s\S]*?)(?=^- )/m.exec(protocolText);
  const filter = /^- `status`: only rooms in this status \(([^)]*)\)/m.exec(protocolText);
  for (const m of [summary, filter]) if (m) statusLists.push([...m[1].matchAll(/`"([a-z_]+)"`/g)].map((x) => x[1]));

  const errorCodes = tableKeys(errors.text, 'code');
  const gameCodes = tableKeys(games.text, 'code').filter((c) => !errorCodes.includes(c));
  return {
    types: new Set(messageTypes(protocolText)),
    pairs, requests, replies, pushes, statusLists,
    errorCodes: new Set(errorCodes),
    gameCodes: new Set(gameCodes),
  };
}

// ---------------------------------------------------------------------------

const pkg = await loadPackage();
const doc = readProtocol(fs.readFileSync(protocolFile, 'utf8'));
const problems = [];
const rel = (p) => path.relative(root, p) || p;

const requestTypes = new Set(pkg.REQUEST_TYPES);
const replyTypes = new Set([...Object.values(pkg.REPLY_TYPES), 'error']);
const pushTypes = new Set(pkg.PUSH_TYPES);
const packageTypes = new Set([...requestTypes, ...replyTypes, ...pushTypes]);

for (const t of doc.types) {
  if (!packageTypes.has(t)) problems.push(`"${t}" is a message of ${rel(protocolFile)} but no request, reply or push type of @parlor/client`);
}
for (const [kind, set] of [['request', requestTypes], ['reply', replyTypes], ['push', pushTypes]]) {
  for (const t of set) if (!doc.types.has(t)) problems.push(`the ${kind} type "${t}" of @parlor/client is not in ${rel(protocolFile)}`);
}
for (const t of doc.requests) if (!requestTypes.has(t)) problems.push(`"${t}" is a request in ${rel(protocolFile)} but not a request type of @parlor/client`);
for (const t of doc.replies) if (!replyTypes.has(t)) problems.push(`"${t}" is a reply in ${rel(protocolFile)} but not a reply type of @parlor/client`);
for (const t of doc.pushes) if (!pushTypes.has(t)) problems.push(`"${t}" is a push in ${rel(protocolFile)} but not a push type of @parlor/client`);
for (const { request, reply, where } of doc.pairs) {
  if (requestTypes.has(request) && pkg.REPLY_TYPES[request] !== reply) {
    problems.push(`${where} answers "${request}" with "${reply}"; @parlor/client's REPLY_TYPES says "${pkg.REPLY_TYPES[request]}"`);
  }
}

function sameSet(what, docSet, pkgList, pkgName) {
  const pkgSet = new Set(pkgList);
  for (const c of docSet) if (!pkgSet.has(c)) problems.push(`${what} "${c}" of ${rel(protocolFile)} is not in @parlor/client's ${pkgName}`);
  for (const c of pkgSet) if (!docSet.has(c)) problems.push(`${pkgName} "${c}" of @parlor/client is not among the ${what}s of ${rel(protocolFile)}`);
}
sameSet('error code', doc.errorCodes, pkg.ERROR_CODES, 'ERROR_CODES');
sameSet('game rejection code', doc.gameCodes, pkg.GAME_ERROR_CODES, 'GAME_ERROR_CODES');
if (doc.statusLists.length !== 2) problems.push(`cannot find the room statuses in ${rel(protocolFile)} (the room summary's and list_rooms's \`status\`)`);
for (const list of doc.statusLists) sameSet('room status', new Set(list), pkg.ROOM_STATUSES, 'ROOM_STATUSES');

// Sanity: the reading itself found what it should (a reader broken by an edit must not pass).
if (doc.pairs.length < 20) problems.push(`only ${doc.pairs.length} request/reply pairs read from ${rel(protocolFile)}`);
if (doc.errorCodes.size < 20) problems.push(`only ${doc.errorCodes.size} error codes read from ${rel(protocolFile)}`);
if (doc.pushes.length === 0) problems.push(`the list of pushes ("**pushes**: ...") not found in ${rel(protocolFile)}`);

if (problems.length) {
  for (const p of problems) console.log(`not ok - ${p}`);
  console.log(`${problems.length} disagreement(s) between ${rel(protocolFile)} and ${rel(packageDir)}`);
  process.exit(1);
}
console.log(`ok - ${rel(protocolFile)} and @parlor/client agree: ${requestTypes.size} requests, ${replyTypes.size} reply types, `
  + `${pushTypes.size} push types, ${doc.pairs.length} request/reply pairs, ${doc.errorCodes.size} error codes, `
  + `${doc.gameCodes.size} game rejection codes, ${pkg.ROOM_STATUSES.length} room statuses`);
