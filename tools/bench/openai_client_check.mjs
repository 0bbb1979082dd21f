// OpenAI's own Node client (the npm package `openai`) against geoalign serve's
// /v1/embeddings: float and base64 answers, each equal to /v1/embed's vectors, and a
// wrong key refused. Run by tools/bench/openai_client_check.sh, which installs the
// package into a temporary folder (it is never vendored here).
//
//   node openai_client_check.mjs http://127.0.0.1:PORT KEY
import OpenAI from 'openai';

const [base, key] = process.argv.slice(2);
const addresses = ['北京市朝阳区建国路88号', '杭州市西湖区文三路478号华星科技大厦', '深圳南山科技园B栋301室'];

const embed = await fetch(`${base}/v1/embed`, {
  method: 'POST',
  headers: {'Content-Type': 'application/json', Authorization: `Bearer ${key}`},
  body: JSON.stringify({addresses}),
}).then((r) => r.json());

const client = new OpenAI({apiKey: key, baseURL: `${base}/v1`});
let failures = 0;
const check = (what, ok) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures += 1;
};
const near = (a, b) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= 1e-6 * Math.max(1, Math.abs(b[i])));

for (const format of ['float', 'base64']) {
  // The client asks for base64 by default and decodes it itself; 'float' asks for numbers.
  const answer = await client.embeddings.create({model: 'geoalign', input: addresses, encoding_format: format});
  check(`${format}: ${answer.data.length} embeddings, model ${answer.model}, usage ${JSON.stringify(answer.usage)}`,
        answer.data.length === addresses.length && answer.usage.prompt_tokens > 0);
  const floats = (text) => {
    const bytes = Buffer.from(text, 'base64');  // a view into Node's shared pool: copy its own bytes
    return Array.from(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
  };
  const vectors = answer.data.map((d) => (typeof d.embedding === 'string' ? floats(d.embedding) : d.embedding));
  check(`${format}: each equals /v1/embed's`, vectors.every((v, i) => near(v, embed.embeddings[i])));
}
const single = await client.embeddings.create({model: 'geoalign', input: addresses[0]});
check('one string: one embedding', single.data.length === 1 && near(single.data[0].embedding, embed.embeddings[0]));

try {
  await new OpenAI({apiKey: 'not-the-key', baseURL: `${base}/v1`, maxRetries: 0})
    .embeddings.create({model: 'geoalign', input: addresses[0]});
  check('a wrong key is refused', false);
} catch (e) {
  check(`a wrong key is refused (${e.status})`, e.status === 401);
}
process.exit(failures ? 1 : 0);
