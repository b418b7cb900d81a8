/**
 * The policy validator's process (see load-isolated.ts): loads the policy named by its argument
 * and writes the LoadResult as JSON on stdout. Started by the front; exits when done.
 */
import { loadPolicy } from './load.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: load-entry POLICY_FILE\n');
  process.exit(2);
}
process.stdout.write(JSON.stringify(loadPolicy(file)));
