// Layout checks by bounding boxes: what a player must act on is on screen with
// the page scrolled to the top, and the parts of a table never cover each other.

// The viewports the client supports: laptop, desktop, phone, tablet.
export const VIEWPORTS = [
  { name: 'laptop', width: 1366, height: 768 },
  { name: 'desktop', width: 1920, height: 1080 },
  { name: 'phone', width: 390, height: 844 },
  { name: 'tablet', width: 768, height: 1024 },
];

// Resizes the page and waits until the client has re-laid itself out.
export async function resize(page, viewport) {
  await page.setViewportSize({ width: viewport.width, height: viewport.height });
  await settle(page);
}

export async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50)))));
}

// Returns a list of problems (empty when the layout is right). Measured in one
// evaluate: every render replaces the elements, so separate look-ups could mix two renders.
export async function layoutProblems(page) {
  // Cards that are still sliding into place (motion.ts) are measured where they come to rest.
  await page.evaluate(() => Promise.race([
    Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))),
    new Promise((resolve) => setTimeout(resolve, 1500)),
  ]));
  return page.evaluate(() => {
    window.scrollTo(0, 0);
    const problems = [];
    const root = document.documentElement;
    const vw = root.clientWidth;
    const vh = root.clientHeight;
    const box = (el) => el.getBoundingClientRect();
    const fmt = (r) => `[${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)}]`;
    const label = (el) => el.getAttribute('data-testid') ?? el.getAttribute('data-card') ?? `${el.tagName.toLowerCase()}.${el.className}`;
    const visible = (el) => { const r = box(el); return r.width > 0 && r.height > 0; };
    const inView = (el, what) => {
      const r = box(el);
      if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) problems.push(`${what} ${fmt(r)} is not inside the ${vw}×${vh} viewport`);
    };
    const overlap = (a, b) => {
      const r = box(a), s = box(b);
      const x = Math.min(r.right, s.right) - Math.max(r.left, s.left);
      const y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      return x > 1 && y > 1;
    };

    if (root.scrollWidth > vw + 1) problems.push(`the page is ${root.scrollWidth}px wide in a ${vw}px viewport`);

    const prompt = document.querySelector('[data-testid="prompt"]');
    if (prompt) {
      inView(prompt, 'the prompt');
      prompt.querySelectorAll('.prompt-controls button').forEach((b) => { if (visible(b)) inView(b, `prompt button "${b.textContent.trim()}"`); });
    }
    const hand = document.querySelector('[data-testid="hand"]');
    const handCards = hand ? [...hand.querySelectorAll('[data-card]')] : [];
    for (const c of handCards) inView(c, `hand card ${label(c)}`);

    // Plates, the cards on the table and the hand never cover each other.
    const plates = [...document.querySelectorAll('[data-testid="felt"] .seat')];
    for (const p of plates) inView(p, `seat plate ${label(p)}`);
    const tableCards = [...document.querySelectorAll('[data-testid="centre"] .card')];
    const parts = [...plates.map((p) => [p, `seat plate ${label(p)}`]), ...tableCards.map((c) => [c, `table card ${label(c)}`])];
    if (hand && handCards.length) parts.push([hand, 'the hand']);
    if (prompt) parts.push([prompt, 'the prompt']);
    for (let i = 0; i < parts.length; i++) {
      for (let j = i + 1; j < parts.length; j++) {
        const [a, an] = parts[i], [b, bn] = parts[j];
        // Cards of one play sit side by side on purpose; only the seats' own cards are compared.
        if (a.closest('.play-cards') && b.closest('.play-cards')) continue;
        // So do the cards of one stack of an external game (they overlap to fit, the top one last).
        if (a.closest('.ext-stack-cards') && a.closest('.ext-stack-cards') === b.closest('.ext-stack-cards')) continue;
        if (overlap(a, b)) problems.push(`${an} ${fmt(box(a))} overlaps ${bn} ${fmt(box(b))}`);
      }
    }

    // Gem Merchants: the bank and the market are the moves; a card's buttons stay on that card.
    for (const t of ['bank', 'market']) {
      const el = document.querySelector(`[data-testid="${t}"]`);
      if (el) inView(el, `the ${t}`);
    }
    const devs = [...document.querySelectorAll('[data-testid="market"] .dev')];
    for (const d of devs) {
      const r = box(d);
      d.querySelectorAll('button').forEach((b) => {
        const s = box(b);
        if (s.left < r.left - 0.5 || s.right > r.right + 0.5 || s.top < r.top - 0.5 || s.bottom > r.bottom + 0.5) {
          problems.push(`button "${b.textContent.trim()}" ${fmt(s)} sticks out of its card ${label(d)} ${fmt(r)}`);
        }
      });
    }
    for (let i = 0; i < devs.length; i++) {
      for (let j = i + 1; j < devs.length; j++) if (overlap(devs[i], devs[j])) problems.push(`market cards ${label(devs[i])} and ${label(devs[j])} overlap`);
    }
    return problems;
  });
}
