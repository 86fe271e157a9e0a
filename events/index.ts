export * from "./catalogue.ts";
export * from "./types.ts";
export { createEventStore, type EventStore } from "./eventStore.ts";
export { GENESIS_HASH, type ChainLink, canonicalEvent, chainHash, verifyChain, type VerifyResult } from "./hashChain.ts";
export { type Checkpoint, START, readFromCheckpoint } from "./readFromCheckpoint.ts";
export { EVENTS_CHANNEL, type SubscribeOptions, type Subscription } from "./subscribe.ts";
export type { Fence } from "./appendToStream.ts";
