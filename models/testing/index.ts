export {
  startAnthropicWireServer,
  type AnthropicWireServer,
  type RecordedRequest,
  type WireHandler,
  type WireRequestBody,
  type WireServerOptions,
} from "./anthropicWireServer.ts";
export {
  cutStream,
  errorEvent,
  httpError,
  noMessageStop,
  overloaded,
  rateLimited,
  reply,
  stall,
  times,
  type WireBehaviour,
} from "./wireBehaviours.ts";
export { type SseEvent, type WireBlock, type WireReply, type WireSearchResult, scriptedSearchResult } from "./wireEvents.ts";
export { followSchema, type FollowOptions, type JsonSchema } from "./followSchema.ts";
export { plainBody, systemTextOf } from "./plainBody.ts";
