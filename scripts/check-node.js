// Every npm script must run on Node >= 22.12 (@stellar/stellar-sdk 17). The `node` devDependency puts Node 24
// first on PATH for npm scripts; this guard makes a wrong runtime fail loudly instead of mysteriously.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(`Node ${process.versions.node} is too old: run through npm (the project pins Node 24 as a devDependency).`);
  process.exit(1);
}
