// Sounds, made with the Web Audio API (no files): a chime when it becomes the player's turn,
// and a lower double tone when their turn clock falls under ten seconds. Muting is one
// button in the top bar and is remembered on this device.

const KEY = 'parlor.sound';
const LOW_TIME_MS = 10_000;

let audio: AudioContext | null = null;
let played = 0;
let warnedFor = '';  // the turn (room and state seq) whose low-time warning has sounded

export function soundOn(): boolean {
  return localStorage.getItem(KEY) !== 'off';
}

export function setSoundOn(on: boolean): void {
  localStorage.setItem(KEY, on ? 'on' : 'off');
}

// How many sounds this page has played (the top bar's button carries it, for tests).
export function soundsPlayed(): number {
  return played;
}

function tones(frequencies: number[], seconds: number): void {
  if (!soundOn()) return;
  try {
    audio ??= new AudioContext();
    // A page that has not been clicked yet may keep the context suspended: then nothing is
    // heard, which is the browser's rule, not an error.
    void audio.resume?.();
    let at = audio.currentTime;
    for (const frequency of frequencies) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.15, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(at);
      oscillator.stop(at + seconds);
      at += seconds * 0.8;
    }
    played += 1;
  } catch {
    // No audio device: the game goes on in silence.
  }
}

export function turnChime(): void {
  tones([660, 880], 0.18);
}

// Called every second by the clock ticker with the time left on the player's own turn.
export function lowTimeCheck(turn: string, leftMs: number): void {
  if (leftMs > LOW_TIME_MS || leftMs <= 0 || warnedFor === turn) return;
  warnedFor = turn;
  tones([440, 330], 0.22);
}
