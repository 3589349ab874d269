// Small assertion helpers with messages that say what was expected.
import assert from 'node:assert/strict';
export { assert };

export function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}
