// A tiny hyperscript helper and the render loop. The whole view is rebuilt from
// the store on every change (batched per animation frame); focus, caret and
// scroll positions are carried across so re-rendering is invisible to the user.

type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (ev: Event) => void;
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler>;

export function h(tag: string, attrs: Attrs | null = null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (typeof value === 'function') {
        el.addEventListener(key.replace(/^on/, '').toLowerCase(), value as Handler);
      } else if (key === 'class') {
        el.className = String(value);
      } else if (key === 'value' && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
        el.value = String(value);
      } else if (key === 'checked' && el instanceof HTMLInputElement) {
        el.checked = Boolean(value);
      } else if (key === 'style') {
        el.setAttribute('style', String(value));
      } else {
        el.setAttribute(key, value === true ? '' : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

// SVG elements need their namespace.
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

// The key that identifies "the same element" across renders, for focus restore.
function focusKey(el: Element | null): string | null {
  if (!el || !(el instanceof HTMLElement)) return null;
  return el.getAttribute('data-card') ? `card:${el.getAttribute('data-card')}` :
    el.getAttribute('data-testid') ? `tid:${el.getAttribute('data-testid')}` : el.id ? `id:${el.id}` : null;
}

function findByKey(root: HTMLElement, key: string): HTMLElement | null {
  const [kind, value] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
  const esc = CSS.escape(value);
  if (kind === 'card') return root.querySelector<HTMLElement>(`button[data-card="${esc}"]`);
  return root.querySelector<HTMLElement>(kind === 'tid' ? `[data-testid="${esc}"]` : `#${esc}`);
}

// Replaces root's content with view(), keeping focus, caret and marked scroll boxes.
export function patch(root: HTMLElement, view: () => HTMLElement): void {
  const active = document.activeElement;
  const key = root.contains(active) ? focusKey(active) : null;
  let caret: [number | null, number | null] | null = null;
  if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) {
    try { caret = [active.selectionStart, active.selectionEnd]; } catch { caret = null; }
  }
  const scrolls = new Map<string, number>();
  root.querySelectorAll<HTMLElement>('[data-scroll-key]').forEach((el) => {
    const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
    scrolls.set(el.dataset.scrollKey!, atBottom ? -1 : el.scrollTop);
  });
  root.replaceChildren(view());
  root.querySelectorAll<HTMLElement>('[data-scroll-key]').forEach((el) => {
    const top = scrolls.get(el.dataset.scrollKey!);
    el.scrollTop = top === undefined || top === -1 ? el.scrollHeight : top;
  });
  if (key) {
    const again = findByKey(root, key);
    if (again && !again.hasAttribute('disabled')) {
      again.focus({ preventScroll: true });
      if (caret && (again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement)) {
        try { again.setSelectionRange(caret[0], caret[1]); } catch { /* not a text input */ }
      }
    }
  }
}

// A dialog that has just opened takes the focus (its first button, or the one marked
// data-autofocus), so keyboard users land in it; focus already inside stays put.
export function focusOpenDialog(root: HTMLElement): void {
  const dialog = root.querySelector<HTMLElement>('[role="dialog"], [role="alertdialog"]');
  if (!dialog || dialog.contains(document.activeElement)) return;
  dialog.querySelector<HTMLElement>('[data-autofocus], button')?.focus({ preventScroll: true });
}

// A press held longer than this no longer holds rendering back.
const MAX_PRESS_MS = 1500;

// Schedules at most one render per animation frame. While the user has a
// <select> open, rendering waits (replacing it would close its popup). While a
// pointer is pressed inside root it waits too: replacing the pressed button
// before the release would swallow the click, since a click needs its press and
// release on the same element — a push arriving mid-click would lose the user's
// move or button press.
export function renderLoop(root: HTMLElement, view: () => HTMLElement, afterRender: () => void = () => {}): () => void {
  let queued = false;
  let pressedSince: number | null = null;
  let heldBack: number | undefined; // the timer that renders if the press outlasts MAX_PRESS_MS
  const resumeIn = (ms: number) => {
    clearTimeout(heldBack);
    heldBack = window.setTimeout(() => run(false), ms);
  };
  const run = (force: boolean) => {
    const active = document.activeElement;
    if (!force && active instanceof HTMLSelectElement && root.contains(active)) {
      // A change closes the popup, so render then; a blur ends the interaction.
      const resume = () => {
        active.removeEventListener('blur', resume);
        active.removeEventListener('change', resume);
        setTimeout(() => run(true), 0);
      };
      active.addEventListener('blur', resume);
      active.addEventListener('change', resume);
      return;
    }
    const held = pressedSince === null ? Infinity : performance.now() - pressedSince;
    if (held < MAX_PRESS_MS) {
      resumeIn(MAX_PRESS_MS - held);
      return;
    }
    clearTimeout(heldBack);
    heldBack = undefined;
    queued = false;
    patch(root, view);
    afterRender();
  };
  root.addEventListener('pointerdown', () => { pressedSince = performance.now(); }, true);
  const release = () => {
    if (pressedSince === null) return;
    pressedSince = null;
    // The click is dispatched right after the release, in the same task: render after it.
    if (heldBack !== undefined) resumeIn(0);
  };
  window.addEventListener('pointerup', release, true);
  window.addEventListener('pointercancel', release, true);
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => run(false));
  };
}
