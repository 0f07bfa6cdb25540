// Drives orrery serve with @ag-ui/client's HttpAgent (the client validates the event stream as it applies it)
// and prints what the client made of each run as JSON: node run.mjs http://127.0.0.1:PORT
import { HttpAgent } from "@ag-ui/client";

const base = process.argv[2];

async function run(agent, params = {}) {
  const types = [];
  const result = await agent.runAgent(params, { onEvent: ({ event }) => { types.push(event.type); } });
  return {
    types,
    result: result.result ?? null,
    messages: agent.messages.map((m) => ({ role: m.role, content: m.content ?? null, toolCalls: m.toolCalls ?? null })),
    pending: agent.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason, message: i.message })),
  };
}

const chat = new HttpAgent({
  url: `${base}/agents/chat`, threadId: "node-chat",
  initialMessages: [{ id: "u1", role: "user", content: "what is 6*7" }],
});
const out = { chat: await run(chat) };

const trip = new HttpAgent({
  url: `${base}/agents/clarify`, threadId: "node-trip",
  initialMessages: [{ id: "u2", role: "user", content: "book me a trip" }],
});
out.ask = await run(trip);
const interrupt = trip.pendingInterrupts[0];
out.resume = await run(trip, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { answer: "Lisbon" } }] });

const note = new HttpAgent({
  url: `${base}/agents/approve`, threadId: "node-note",
  initialMessages: [{ id: "u3", role: "user", content: "hello" }],
});
out.approval = await run(note);
out.approved = await run(note, { resume: note.pendingInterrupts.map((i) => (
  { interruptId: i.id, status: "resolved", payload: { approved: true } })) });
console.log(JSON.stringify(out));
