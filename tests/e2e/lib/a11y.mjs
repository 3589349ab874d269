// Accessibility checks with axe-core (npm `axe-core`, run inside the page): the WCAG 2.1 A
// and AA rules, and the findings axe rates serious or critical. Minor and moderate findings
// are reported by the scenario's log but do not fail it.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const FAILING = new Set(['serious', 'critical']);

// axe's findings on the page as it is now: { failing, other }, each a list of lines
// "rule (impact): help — selector, selector".
export async function axeFindings(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async (tags) => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
  }, TAGS);
  const line = (v) => `${v.id} (${v.impact}): ${v.help} — ${v.targets.join(', ')}`;
  return {
    failing: violations.filter((v) => FAILING.has(v.impact)).map(line),
    other: violations.filter((v) => !FAILING.has(v.impact)).map(line),
  };
}
