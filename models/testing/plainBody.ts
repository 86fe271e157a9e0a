import type { WireRequestBody } from "./anthropicWireServer.ts";

/**
 * A Messages API body as the runtime meant it, without the prompt cache markers
 * the adapter adds (models/toAnthropicParams.ts): the system prompt as one
 * string, and blocks and tools without `cache_control`. Tests that read a
 * request back (whose role, which tools, the request inverted) read this.
 */
export function plainBody(body: WireRequestBody): WireRequestBody & { system: string } {
  return {
    ...body,
    system: systemTextOf(body),
    messages: body.messages.map((m) => {
      const message = m as { role: string; content: unknown };
      return Array.isArray(message.content) ? { ...message, content: message.content.map(withoutMarker) } : message;
    }),
    ...(body.tools ? { tools: body.tools.map(withoutMarker) } : {}),
  };
}

/** The system prompt's text, sent as a string or as text blocks. */
export function systemTextOf(body: WireRequestBody | undefined): string {
  const system = body?.system;
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((b) => (b as { text?: string }).text ?? "").join("");
  return "";
}

function withoutMarker(block: unknown): unknown {
  if (!block || typeof block !== "object" || !("cache_control" in block)) return block;
  const { cache_control: _, ...rest } = block as Record<string, unknown>;
  return rest;
}
