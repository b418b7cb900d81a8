/**
 * A host process's entry point. The front starts `node dist/host/entry.js --for KEY` (the key is
 * there for `ps`; the configuration comes in the environment): no CLI parser, no HTTP stack, no
 * policy schema, only what a host runs.
 */
import { runHost } from './main.js';

await runHost();
