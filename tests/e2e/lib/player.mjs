// One person at a browser: a fresh browser context (own localStorage, so own
// token) with one page on the Parlor client, plus the few UI gestures the
// scenarios need. Everything goes through the rendered UI: clicks on buttons
// and cards, never the WebSocket directly.

const CONNECT_TIMEOUT = 15000;

export class Player {
  constructor(browser, context, page, name, baseUrl) {
    this.browser = browser;
    this.context = context;
    this.page = page;
    this.name = name;
    this.baseUrl = baseUrl;
    this.errors = [];
    page.on('pageerror', (err) => this.errors.push(String(err)));
    // Frames the page's WebSockets receive, for waiting on a push before the page shows it.
    this.frameWaiters = new Set();
    // And the frames it sends, to check what the client asks for.
    this.sent = [];
    page.on('websocket', (ws) => {
      ws.on('framereceived', ({ payload }) => {
        for (const w of this.frameWaiters) if (w.test(String(payload))) { this.frameWaiters.delete(w); w.resolve(); }
      });
      ws.on('framesent', ({ payload }) => this.sent.push(String(payload)));
    });
    // Console errors count, except the browser's own notes about sockets and requests that
    // failed while a test cut the network on purpose.
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/WebSocket connection|net::ERR_|Failed to load resource/.test(msg.text())) this.errors.push(msg.text());
    });
  }

  static async create(browser, baseUrl, name, { viewport = { width: 1280, height: 900 }, hash = '' } = {}) {
    const context = await browser.newContext({ viewport, baseURL: baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(10000);
    const player = new Player(browser, context, page, name, baseUrl);
    await player.open(hash);
    return player;
  }

  // Loads the client; chooses the name when asked; waits for "connected".
  async open(hash = '') {
    await this.page.goto(`${this.baseUrl}/${hash}`);
    const nameInput = this.page.getByTestId('name-input');
    const connected = this.page.locator('[data-testid="conn-status"][data-status="connected"]');
    await Promise.race([nameInput.waitFor({ timeout: CONNECT_TIMEOUT }), connected.waitFor({ timeout: CONNECT_TIMEOUT })]);
    if (await nameInput.isVisible()) {
      await nameInput.fill(this.name);
      await this.page.getByTestId('name-save').click();
    }
    await connected.waitFor({ timeout: CONNECT_TIMEOUT });
  }

  // Resolves when the page next receives a WebSocket frame that `test` accepts.
  frameReceived(test, timeout = 10000) {
    return new Promise((resolve, reject) => {
      const waiter = { test, resolve: () => { clearTimeout(timer); resolve(); } };
      const timer = setTimeout(() => { this.frameWaiters.delete(waiter); reject(new Error(`${this.name}: no such frame within ${timeout} ms`)); }, timeout);
      this.frameWaiters.add(waiter);
    });
  }

  async close() {
    await this.context.close().catch(() => {});
  }

  // Creates a room from the lobby form and returns its id (from the room link).
  async createRoom(kind, { seats, seed, options = {}, turnSeconds } = {}) {
    const page = this.page;
    if (await page.getByTestId('to-lobby').isVisible()) await page.getByTestId('to-lobby').click();
    await page.getByTestId('create-form').waitFor();
    await page.getByTestId('create-kind').selectOption(kind);
    await page.locator(`#create-kind`).evaluate((el, k) => { if (el.value !== k) throw new Error(`game ${k} is not listed`); }, kind);
    // The form is drawn again for the chosen game: its fields belong to that game from then on.
    await page.locator(`[data-testid="create-form"][data-kind="${kind}"]`).waitFor();
    if (seats !== undefined) await page.getByTestId('create-seats').selectOption(String(seats));
    for (const [name, value] of Object.entries(options)) {
      const field = page.getByTestId(`opt-${name}`);
      const type = await field.evaluate((el) => (el.tagName === 'SELECT' ? 'select' : el.type));
      if (type === 'select') await field.selectOption(String(value));
      else if (type === 'checkbox') await field.setChecked(Boolean(value));
      else await field.fill(String(value));
    }
    if (turnSeconds !== undefined) {
      const details = page.locator('details.advanced', { hasText: 'Table settings' });
      if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
      await page.getByTestId('room-turn-seconds').fill(String(turnSeconds));
    }
    if (seed !== undefined) {
      const details = page.locator('details.advanced', { hasText: 'Testing' });
      if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
      await page.getByTestId('create-seed').fill(String(seed));
    }
    await page.getByTestId('create-room').click();
    await page.waitForURL(/#\/room\//);
    await page.getByTestId('room').waitFor();
    return decodeURIComponent(new URL(page.url()).hash.replace(/^#\/room\//, ''));
  }

  // Joins from the live list of open rooms in the lobby.
  async joinFromLobby(roomId) {
    const page = this.page;
    if (!(await page.getByTestId('lobby').isVisible())) await page.getByTestId('to-lobby').click();
    const join = page.getByTestId(`join-${roomId}`);
    await join.waitFor({ timeout: 10000 });
    await join.click();
    await page.waitForURL(new RegExp(`#/room/${encodeURIComponent(roomId)}`));
    await page.locator('[data-testid="room"]:not([data-seat="spectator"])').waitFor();
  }

  async seat() {
    const v = await this.page.getByTestId('room').getAttribute('data-seat');
    return v === 'spectator' || v === null ? null : Number(v);
  }

  async seq() {
    return this.page.evaluate(() => Number(document.querySelector('[data-testid="room"]')?.getAttribute('data-seq') ?? -1));
  }

  async status() {
    return this.page.evaluate(() => document.querySelector('[data-testid="room"]')?.getAttribute('data-status') ?? null);
  }

  async waitSeqAtLeast(seq, timeout = 10000) {
    await this.page.waitForFunction((s) => Number(document.querySelector('[data-testid="room"]')?.getAttribute('data-seq') ?? -1) >= s, seq, { timeout });
  }

  async myTurn() {
    return this.page.evaluate(() => document.querySelector('[data-testid="prompt"]')?.getAttribute('data-my-turn') === 'true');
  }

  async handCards() {
    return this.page.evaluate(() => [...document.querySelectorAll('[data-testid="hand"] [data-card]')].map((e) => e.getAttribute('data-card')));
  }

  // The play log's lines as shown (its latest 40).
  async logLines() {
    return this.page.locator('[data-testid="log"] li').allTextContents();
  }

  async waitLogLines(count, timeout = 10000) {
    await this.page.waitForFunction((n) => document.querySelectorAll('[data-testid="log"] li').length >= n, count, { timeout });
  }

  async errorSerial() {
    return this.page.evaluate(() => Number(document.querySelector('[data-testid="move-error"]')?.getAttribute('data-serial') ?? 0));
  }

  async moveError() {
    return (await this.page.getByTestId('move-error').first().textContent())?.trim() ?? '';
  }

  // Clicks a hand card where it is always visible (its top-left corner: cards overlap to the right).
  async clickCard(card) {
    await this.page.locator(`[data-testid="hand"] button[data-card="${card}"]`).click({ position: { x: 7, y: 9 } });
  }

  async enabledHandCards() {
    return this.page.evaluate(() => [...document.querySelectorAll('[data-testid="hand"] button[data-card]:not([disabled])')].map((e) => e.getAttribute('data-card')));
  }

  async isEnabled(testid) {
    return this.page.evaluate((t) => {
      const el = document.querySelector(`[data-testid="${t}"]`);
      return !!el && !el.disabled;
    }, testid);
  }
}
