// What a screen reader says as a game goes on: each public move, and "Your turn" when the
// player is prompted. The region lives outside the app's root, which is rebuilt on every
// render; a live region that is replaced along with its text is not read out.

const KEEP = 6; // the last few lines stay, for a reader that reviews the region

let region: HTMLElement | null = null;

function liveRegion(): HTMLElement {
  if (region) return region;
  region = document.createElement('div');
  region.className = 'sr-only';
  region.setAttribute('role', 'log');
  region.setAttribute('aria-live', 'polite');
  region.setAttribute('aria-label', 'Game announcements');
  region.setAttribute('data-testid', 'announcer');
  document.body.appendChild(region);
  return region;
}

// Adds `text` to the announcements (a new line each time, so a repeated text is read again).
export function announce(text: string): void {
  if (!text) return;
  const el = liveRegion();
  const line = document.createElement('p');
  line.textContent = text;
  el.appendChild(line);
  while (el.childElementCount > KEEP) el.firstElementChild?.remove();
}
