// Cards that move. The view is rebuilt on every render, so "moving" means: an element that
// shows something new gets a CSS animation class (its keyframes in style.css). A card played
// into the trick slides in from its player's side; the card that wins a trick glows once; a
// Big Two play slides in from its player. A render during an animation draws the element
// anew with the animation started that long ago (a negative delay), so it carries on rather
// than starting over; once it is over, the element is drawn still. Animations are CSS only:
// they never hold up a render, a click or a push, and `prefers-reduced-motion` turns them
// off (style.css).

const MOVING_MS = 800;  // longer than any of the animations

// When each room's elements of each kind ("trick", "won", "play") first showed each key.
const firstShown = new Map<string, Map<string, number>>();
// Rooms whose table this page has drawn: in them, a kind of element not drawn before (the
// first trick won) is new; in a room drawn for the first time, nothing is.
const roomsDrawn = new Set<string>();

export class Arrivals {
  private readonly now = new Map<string, number>();
  private readonly before: Map<string, number> | undefined;
  private readonly at = Date.now();

  constructor(private readonly room: string, private readonly kind: string) {
    this.before = firstShown.get(`${room}\n${kind}`) ?? (roomsDrawn.has(room) ? new Map() : undefined);
  }

  // How long ago `key` first showed, while it is still moving; null when it is not moving.
  // The first render of a room (a page load, a reload) moves nothing: those cards were there.
  movingFor(key: string): number | null {
    const first = this.before === undefined ? 0 : this.before.get(key) ?? this.at;
    this.now.set(key, first);
    const elapsed = this.at - first;
    return elapsed < MOVING_MS ? elapsed : null;
  }

  // Call once the kind of element is drawn: what it showed is remembered for the next render.
  done(): void {
    firstShown.set(`${this.room}\n${this.kind}`, this.now);
    roomsDrawn.add(this.room);
  }
}
