// The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) in the browser, with Web Crypto: the
// console logs in over two POSTs (api/login/first, api/login/final) the way libpq does over the
// wire, so the password never leaves the page; only a proof of it does. Without channel binding
// (gs2 header "n,,"), the user name empty in the message as libpq sends it (the server takes it
// from the request, as from a startup packet).

const encoder = new TextEncoder();

const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

async function hmac(key, data) {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, typeof data === 'string' ? encoder.encode(data) : data));
}

async function sha256(data) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', data));
}

// Hi() of RFC 5802 is PBKDF2 with HMAC-SHA-256 and one 32-byte block.
async function hi(password, salt, iterations) {
  const k = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, k, 256));
}

const xor = (a, b) => a.map((x, i) => x ^ b[i]);

// Characters RFC 3454 table B.1 maps to nothing.
const MAPPED_TO_NOTHING = /[\u00AD\u034F\u1806\u180B-\u180D\u200B-\u200D\u2060\uFE00-\uFE0F\uFEFF]/gu;
// What SASLprep prohibits, near enough: control, private-use, unassigned and surrogate code points.
const PROHIBITED = /[\p{Cc}\p{Co}\p{Cn}\p{Cs}]/u;

// The password as the server hashed it: SASLprep'd (non-ASCII spaces to a space, B.1 removed,
// NFKC) and UTF-8 encoded; as PostgreSQL does, one SASLprep would refuse is used as it is.
export function prepare(password) {
  if (/^[\x00-\x7F]*$/.test(password)) return encoder.encode(password);
  const normal = password.replace(MAPPED_TO_NOTHING, '').replace(/[^\S\x00-\x7F]/gu, ' ').normalize('NFKC');
  return encoder.encode(PROHIBITED.test(normal) ? password : normal);
}

// Logs `user` in with `password`; post(path, body) answers the server's JSON. Resolves to the
// server's answer once the server has also proven it holds the password's verifier; rejects with
// { sqlstate, message } otherwise (28P01 for a wrong password, as psql says it).
export async function login(user, password, post) {
  const clientNonce = toBase64(crypto.getRandomValues(new Uint8Array(18)));
  const clientFirstBare = `n=,r=${clientNonce}`;
  const first = await post('api/login/first', { user, client_first: `n,,${clientFirstBare}` });
  if (first.error) throw first.error;
  const serverFirst = first.server_first;
  const attrs = Object.fromEntries(serverFirst.split(',').map((a) => [a[0], a.slice(2)]));
  const iterations = Number(attrs.i);
  if (!attrs.r || !attrs.r.startsWith(clientNonce) || !attrs.s || !(iterations > 0)) {
    throw { sqlstate: '08P01', message: `invalid SCRAM message from the server: ${serverFirst}` };
  }
  const salted = await hi(prepare(password), fromBase64(attrs.s), iterations);
  const clientKey = await hmac(salted, 'Client Key');
  const storedKey = await sha256(clientKey);
  const withoutProof = `c=biws,r=${attrs.r}`; // biws is base64("n,,")
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const proof = xor(clientKey, await hmac(storedKey, authMessage));
  const last = await post('api/login/final', { exchange: first.exchange, client_final: `${withoutProof},p=${toBase64(proof)}` });
  if (last.error) throw last.error;
  const serverSignature = await hmac(await hmac(salted, 'Server Key'), authMessage);
  if (last.server_final !== `v=${toBase64(serverSignature)}`) {
    throw { sqlstate: '08P01', message: "the server's SCRAM signature is wrong: it does not know this password's verifier" };
  }
  return last;
}
