import crypto from 'node:crypto'

/**
 * A Google service account for tests: an RSA key pair and the JSON key file Google Cloud would give for it, whose
 * token_uri points at the local fake of Google's API (tests/support/google-wallet-fake.ts). Made once per process.
 */

export const TEST_GOOGLE_ISSUER_ID = '3388000000022222222'
export const TEST_GOOGLE_CLIENT_EMAIL = 'stampwise-wallet@stampwise-test.iam.gserviceaccount.com'

export type GoogleServiceAccountKey = {
  issuerId: string
  clientEmail: string
  privateKeyId: string
  privateKeyPem: string
  publicKeyPem: string
  /** The key file's JSON for a given token_uri. */
  json(tokenUri: string): string
  /** GOOGLE_WALLET_* settings for a test server talking to the fake at `apiOrigin` (its token_uri there too). */
  env(apiOrigin: string): Record<string, string>
}

let made: { privateKeyPem: string; publicKeyPem: string } | undefined

export function makeGoogleServiceAccount(): GoogleServiceAccountKey {
  made ??= (() => {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
    return {
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    }
  })()
  const privateKeyId = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'
  const json = (tokenUri: string) =>
    JSON.stringify({
      type: 'service_account',
      project_id: 'stampwise-test',
      private_key_id: privateKeyId,
      private_key: made!.privateKeyPem,
      client_email: TEST_GOOGLE_CLIENT_EMAIL,
      client_id: '100000000000000000001',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: tokenUri,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      universe_domain: 'googleapis.com',
    })
  return {
    issuerId: TEST_GOOGLE_ISSUER_ID,
    clientEmail: TEST_GOOGLE_CLIENT_EMAIL,
    privateKeyId,
    ...made,
    json,
    env: (apiOrigin) => ({
      GOOGLE_WALLET_ISSUER_ID: TEST_GOOGLE_ISSUER_ID,
      GOOGLE_WALLET_SERVICE_ACCOUNT: json(`${apiOrigin}/token`),
      GOOGLE_WALLET_API_ORIGIN: apiOrigin,
    }),
  }
}
