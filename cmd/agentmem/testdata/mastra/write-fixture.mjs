// Writes a small Mastra memory database with Mastra's own code (@mastra/memory
// over @mastra/libsql): two resources, three threads, every format-2 part type
// (text, reasoning, tool-invocation call and result, file, source,
// step-start), a system message, and working memory in resource and thread
// scope. agentmem's import --from mastra test reads the file it writes.
//
//   cd cmd/agentmem/testdata/mastra && npm install && node write-fixture.mjs mastra.db
//
// With a PostgreSQL DSN and a schema it writes the same memory with
// @mastra/pg instead; regen-pg.sh turns that into mastra-pg.sql.
import { rmSync } from "node:fs";
import { LibSQLStore } from "@mastra/libsql";
import { PostgresStore } from "@mastra/pg";
import { Memory } from "@mastra/memory";

const path = process.argv[2] ?? "mastra.db";
let storage;
if (path.startsWith("postgres")) {
  storage = new PostgresStore({ id: "fixture", connectionString: path, schemaName: process.argv[3] });
} else {
  rmSync(path, { force: true });
  storage = new LibSQLStore({ id: "fixture", url: `file:${path}` });
}
await storage.init();

const resourceMemory = new Memory({ storage, options: { workingMemory: { enabled: true, scope: "resource" } } });
const threadMemory = new Memory({ storage, options: { workingMemory: { enabled: true, scope: "thread" } } });

const at = (s) => new Date(Date.UTC(2025, 0, 15, 9, 0, s));
const msg = (id, threadId, resourceId, role, second, parts) => ({
  id, threadId, resourceId, role, createdAt: at(second), type: "v2",
  content: { format: 2, parts },
});

await resourceMemory.createThread({ threadId: "trip", resourceId: "ada", title: "Trip to Lisbon",
  metadata: { channel: "web" }, saveThread: true });
await resourceMemory.saveMessages({ messages: [
  msg("trip-1", "trip", "ada", "user", 0, [{ type: "text", text: "Find me a hotel in Lisbon for May 3-5." }]),
  msg("trip-2", "trip", "ada", "assistant", 1, [
    { type: "step-start" },
    { type: "reasoning", reasoning: "Search hotels first.", details: [{ type: "text", text: "Search hotels first." }] },
    { type: "tool-invocation", toolInvocation: { state: "result", toolCallId: "call-1", toolName: "searchHotels",
      args: { city: "Lisbon", from: "2025-05-03", to: "2025-05-05" },
      result: { hotels: [{ name: "Casa Azul", price: 120 }] } } },
    { type: "text", text: "Casa Azul has a room for 120 EUR a night." },
    { type: "source", source: { sourceType: "url", id: "src-1", url: "https://example.com/casa-azul", title: "Casa Azul" } },
  ]),
  msg("trip-3", "trip", "ada", "user", 2, [
    { type: "text", text: "Here is my passport scan." },
    { type: "file", data: "aGVsbG8=", mimeType: "image/png" },
  ]),
  msg("trip-4", "trip", "ada", "assistant", 3, [
    { type: "tool-invocation", toolInvocation: { state: "call", toolCallId: "call-2", toolName: "bookHotel",
      args: { hotel: "Casa Azul" } } },
  ]),
  msg("trip-5", "trip", "ada", "system", 4, [{ type: "text", text: "You are a travel agent." }]),
] });
await resourceMemory.updateWorkingMemory({ threadId: "trip", resourceId: "ada",
  workingMemory: "# About the user\n- **Name**: Ada\n- **Location**: Porto\n" });

await resourceMemory.createThread({ threadId: "food", resourceId: "ada", title: "Dinner ideas", saveThread: true });
await resourceMemory.saveMessages({ messages: [
  msg("food-1", "food", "ada", "user", 10, [{ type: "text", text: "Something vegetarian tonight?" }]),
  msg("food-2", "food", "ada", "assistant", 11, [{ type: "text", text: "Try a mushroom risotto." }]),
] });

await threadMemory.createThread({ threadId: "notes", resourceId: "bob", title: "Notes", saveThread: true });
await threadMemory.saveMessages({ messages: [
  msg("notes-1", "notes", "bob", "user", 20, [{ type: "text", text: "Remember that I prefer trains." }]),
] });
await threadMemory.updateWorkingMemory({ threadId: "notes", resourceId: "bob",
  workingMemory: "# Notes\n- prefers trains\n" });

await storage.close?.();
console.log(`wrote ${path}`);
