// A real OpenID Connect provider for the single sign-on tests: panva's `oidc-provider` (OpenID
// Certified), configured from one JSON argument and listening on a loopback port.
//
// Usage: node provider.js '<configuration JSON>'
//
// The configuration (every field but `port` optional):
//   {
//     "port": 43123,                      // the loopback port (127.0.0.1) to listen on
//     "clients": [{ "client_id": "...", "client_secret": "...", "redirect_uris": ["..."],
//                   "id_token_signed_response_alg": "RS256" | "ES256" }],
//     "accounts": [{ "sub": "alice", "email": "alice@example.com", "email_verified": true }],
//     "id_token_ttl": 3600,              // seconds an ID token is valid (`exp` - `iat`)
//     "client_auth_methods": ["client_secret_basic", "client_secret_post"]
//   }
// Once it listens, it prints one line `ready http://127.0.0.1:<port>` (the issuer) on standard
// output; errors go to standard error.
//
// What it does as a provider:
// - the authorization code flow only, PKCE required (S256: oidc-provider accepts no other);
// - scope `email` releases `email` and `email_verified` in the ID token itself
//   (`conformIdTokenClaims: false`), as Google, Microsoft and Okta do;
// - signing keys: one RSA (RS256) and one P-256 (ES256) key, generated at start, each with a
//   `kid`, published at the JWKS endpoint;
// - login: GET /interaction/<uid> shows a form with one field, `login` (an account's e-mail
//   address or subject), posted to /interaction/<uid>/login; no password, since the accounts are
//   the test's own. A plain HTTP client with a cookie jar, or a browser, completes it. Consent is
//   never asked: every client is first-party, so the grant is made on the spot
//   (`loadExistingGrant`, as oidc-provider's documentation shows for skipping consent).

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2] ?? '{}');
if (!Number.isInteger(config.port)) {
  console.error('usage: node provider.js \'{"port": <loopback port>, ...}\'');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${config.port}`;
const accounts = config.accounts ?? [];
const idTokenTtl = config.id_token_ttl ?? 3600;

// One signing key per algorithm the tests ask for, as JWKs with their private parts.
function signingKey(type, options, alg, kid) {
  const { privateKey } = generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: 'jwk' }), alg, kid, use: 'sig' };
}
const jwks = {
  keys: [
    signingKey('rsa', { modulusLength: 2048 }, 'RS256', 'rsa-1'),
    signingKey('ec', { namedCurve: 'P-256' }, 'ES256', 'ec-1'),
  ],
};

function findAccountBy(login) {
  const wanted = String(login ?? '').trim().toLowerCase();
  return accounts.find((a) => a.sub === wanted || String(a.email).toLowerCase() === wanted);
}

const provider = new Provider(issuer, {
  clients: (config.clients ?? []).map((client) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: (config.client_auth_methods ?? ['client_secret_basic'])[0],
    ...client,
  })),
  clientAuthMethods: config.client_auth_methods ?? ['client_secret_basic', 'client_secret_post'],
  jwks,
  // The ID token's lifetime; an expired one is what the expiry test needs.
  ttl: {
    IdToken: idTokenTtl,
    AccessToken: 600,
    AuthorizationCode: 60,
    Grant: 3600,
    Interaction: 600,
    Session: 3600,
  },
  pkce: { required: () => true },
  conformIdTokenClaims: false,
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  scopes: ['openid', 'email'],
  features: { devInteractions: { enabled: false } },
  // Throwaway keys: the cookies live as long as this process.
  cookies: { keys: [randomBytes(32).toString('hex')] },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(ctx, sub) {
    const account = accounts.find((a) => a.sub === sub);
    if (!account) return undefined;
    return {
      accountId: account.sub,
      async claims() {
        const claims = { sub: account.sub };
        if (account.email !== undefined) claims.email = account.email;
        if (account.email_verified !== undefined) claims.email_verified = account.email_verified;
        return claims;
      },
    };
  },
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email');
    await grant.save();
    return grant;
  },
  renderError(ctx, out) {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `${out.error}: ${out.error_description ?? ''}\n`;
  },
});

// Form bodies of the login page, bounded (the field is an e-mail address).
async function formBody(req) {
  let raw = '';
  for await (const chunk of req) {
    raw += chunk;
    if (raw.length > 4096) throw new Error('form too large');
  }
  return new URLSearchParams(raw);
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The login interaction, ahead of the provider's own routes.
provider.use(async (ctx, next) => {
  const match = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec(ctx.path);
  if (!match) return next();
  const [, uid, login] = match;
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  if (details.uid !== uid) ctx.throw(400, 'interaction mismatch');
  if (!login && ctx.method === 'GET') {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body><h1>Sign in to the test provider</h1>
<p>Client: ${escapeHtml(details.params.client_id)}</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="login">E-mail address</label> <input id="login" name="login" type="email" autofocus>
<button type="submit">Sign in</button></form></body></html>`;
    return undefined;
  }
  if (login && ctx.method === 'POST') {
    const form = await formBody(ctx.req);
    const account = findAccountBy(form.get('login'));
    if (!account) {
      ctx.status = 401;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'no such test account\n';
      return undefined;
    }
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: account.sub } }, {
      mergeWithLastSubmission: false,
    });
    return undefined;
  }
  ctx.throw(405, 'method not allowed');
  return undefined;
});

const server = provider.listen(config.port, '127.0.0.1', () => {
  console.log(`ready ${issuer}`);
});
server.on('error', (error) => {
  console.error(error.message);
  process.exit(1);
});
