// Fits the play area (felt, prompt, hand) to the screen: CSS sizes it as the
// viewport's height minus where it starts, and where it starts depends on what
// sits above it (the page header wraps differently per width; a results panel
// may come first), so that offset is measured after every render and on resize.

export function fitPlayArea(): void {
  const area = document.querySelector<HTMLElement>('.play-area');
  if (!area) return;
  const top = `${Math.round(area.getBoundingClientRect().top + window.scrollY)}px`;
  const root = document.documentElement;
  if (root.style.getPropertyValue('--play-top') !== top) root.style.setProperty('--play-top', top);
}
