// @parlor/client: the Parlor WebSocket protocol v1 for browsers and Node, with no
// runtime dependencies. README.md shows how to use it.

export * from './protocol.js';
export * from './client.js';
