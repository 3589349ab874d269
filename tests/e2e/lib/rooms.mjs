// The people at the tables and the rooms they play in, shared by the scenario
// files: everyone is created once and reused, so each scenario only pays for
// the rooms it opens.

import { Player } from './player.mjs';

const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin'];

// The first n people (alice, bob, ...), reusing those an earlier scenario created.
export async function players(env, n) {
  if (!env.shared.people) env.shared.people = env.shared.bigtwo?.players ?? [];
  while (env.shared.people.length < n) {
    env.shared.people.push(await Player.create(env.browser, env.baseUrl, NAMES[env.shared.people.length]));
  }
  return env.shared.people.slice(0, n);
}

// Creates a room from the first player's lobby, seats the others from the live list, starts it.
export async function startRoom(env, kind, people, { seed, options = {}, turnSeconds } = {}) {
  const [host, ...guests] = people;
  const room = await host.createRoom(kind, { seats: people.length, seed, options, turnSeconds });
  for (const p of guests) await p.joinFromLobby(room);
  await host.page.getByTestId('start').click();
  for (const p of people) await p.page.locator(`[data-testid="table"][data-game="${kind}"]`).waitFor();
  env.log(`${kind} room ${room}`);
  env.shared.rooms = { ...(env.shared.rooms ?? {}), [kind]: room };
  return room;
}

// Whoever is prompted now (the first person when nobody is).
export async function actorOf(people) {
  const turns = await Promise.all(people.map((p) => p.myTurn()));
  const i = turns.indexOf(true);
  return i >= 0 ? people[i] : people[0];
}

// Everyone leaves the room on screen (confirming when the game is under way: a bot takes
// the seat), so later scenarios are not refused for holding too many unfinished rooms.
export async function leaveAll(people) {
  for (const p of people) {
    await p.page.getByTestId('leave').click();
    const confirm = p.page.getByTestId('leave-confirm-yes');
    const lobby = p.page.getByTestId('lobby');
    // The game may end between reading its status and the click: wait for either outcome.
    await Promise.race([confirm.waitFor(), lobby.waitFor()]);
    if (await confirm.isVisible()) await confirm.click();
    await lobby.waitFor();
  }
}
