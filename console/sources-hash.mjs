// The hash of the console's sources that build.sh writes into the bundle's first line and
// ConsoleBundleTest recomputes: SHA-256 over each file of src/ and package-lock.json, in order of
// path, as the path, a NUL, the contents, a NUL.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';

const files = readdirSync('src').map((f) => 'src/' + f).concat(['package-lock.json']).sort();
const hash = createHash('sha256');
for (const f of files) {
  hash.update(f);
  hash.update('\0');
  hash.update(readFileSync(f));
  hash.update('\0');
}
process.stdout.write(hash.digest('hex'));
