import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * Apple Wallet credentials for tests, made with the real openssl CLI: a root CA (what Apple's root is to a device), a
 * "WWDR" intermediate it signs, a Pass Type ID certificate the WWDR signs (subject UID = the pass type id, OU = the
 * team, as Apple issues them), its RSA key (also a passphrase-protected copy) and an APNs .p8 key (EC P-256, PKCS#8).
 * Made once per process in a temp folder: key generation takes a moment.
 */

export const TEST_PASS_TYPE_ID = 'pass.test.stampwise'
export const TEST_TEAM_ID = 'TEAM123456'
export const TEST_APNS_KEY_ID = 'APNSKEY123'
const PASSPHRASE = 'wallet passphrase'

export type AppleCerts = {
  dir: string
  caPem: string
  caPath: string
  wwdrPem: string
  certPem: string
  keyPem: string
  encryptedKeyPem: string
  passphrase: string
  apnsKeyPem: string
  apnsKeyId: string
  passTypeId: string
  teamId: string
  /** The APPLE_* and APNS_* settings (PEM text) for a test server. */
  env(): Record<string, string>
}

function openssl(dir: string, args: string[]) {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
}

function extensionsFile(dir: string) {
  const file = path.join(dir, 'extensions.cnf')
  fs.writeFileSync(
    file,
    [
      '[ca]',
      'basicConstraints = critical, CA:TRUE',
      'keyUsage = critical, keyCertSign, cRLSign',
      '[leaf]',
      'basicConstraints = critical, CA:FALSE',
      'keyUsage = critical, digitalSignature',
      'extendedKeyUsage = clientAuth',
      '',
    ].join('\n'),
  )
  return file
}

/** A Pass Type ID certificate for `passTypeId`, signed by the WWDR in `dir`, valid for `days` days, for key.pem. */
function signLeaf(dir: string, name: string, { days, passTypeId }: { days: number; passTypeId: string }) {
  const subject = `/UID=${passTypeId}/CN=Pass Type ID: ${passTypeId}/OU=${TEST_TEAM_ID}/O=Stampwise Tests/C=US`
  openssl(dir, ['req', '-new', '-key', 'key.pem', '-subj', subject, '-out', `${name}.csr`])
  openssl(dir, [
    'x509', '-req', '-in', `${name}.csr`, '-CA', 'wwdr.pem', '-CAkey', 'wwdr.key', '-CAcreateserial',
    '-days', String(days), '-extfile', 'extensions.cnf', '-extensions', 'leaf', '-out', `${name}.pem`,
  ]) // prettier-ignore
  return fs.readFileSync(path.join(dir, `${name}.pem`), 'utf8')
}

let made: AppleCerts | undefined

export function makeAppleCerts(): AppleCerts {
  if (made) return made
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stampwise-apple-certs-'))
  extensionsFile(dir)
  const rsa = ['-newkey', 'rsa:2048', '-nodes']
  openssl(dir, ['req', '-x509', ...rsa, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650',
    '-subj', '/CN=Stampwise Test Root CA/O=Stampwise Tests', '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign']) // prettier-ignore
  openssl(dir, ['req', '-new', ...rsa, '-keyout', 'wwdr.key', '-out', 'wwdr.csr',
    '-subj', '/CN=Stampwise Test WWDR/OU=G4/O=Stampwise Tests/C=US']) // prettier-ignore
  openssl(dir, ['x509', '-req', '-in', 'wwdr.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
    '-days', '3650', '-extfile', 'extensions.cnf', '-extensions', 'ca', '-out', 'wwdr.pem']) // prettier-ignore
  openssl(dir, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'key.pem'])
  openssl(dir, ['pkey', '-in', 'key.pem', '-aes256', '-passout', `pass:${PASSPHRASE}`, '-out', 'key.enc.pem'])
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'apns.p8'])
  const certPem = signLeaf(dir, 'pass', { days: 365, passTypeId: TEST_PASS_TYPE_ID })
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8')
  const certs: AppleCerts = {
    dir,
    caPem: read('ca.pem'),
    caPath: path.join(dir, 'ca.pem'),
    wwdrPem: read('wwdr.pem'),
    certPem,
    keyPem: read('key.pem'),
    encryptedKeyPem: read('key.enc.pem'),
    passphrase: PASSPHRASE,
    apnsKeyPem: read('apns.p8'),
    apnsKeyId: TEST_APNS_KEY_ID,
    passTypeId: TEST_PASS_TYPE_ID,
    teamId: TEST_TEAM_ID,
    env: () => ({
      APPLE_PASS_TYPE_ID: TEST_PASS_TYPE_ID,
      APPLE_TEAM_ID: TEST_TEAM_ID,
      APPLE_PASS_CERT: certPem,
      APPLE_PASS_KEY: certs.keyPem,
      APPLE_WWDR_CERT: certs.wwdrPem,
      APNS_KEY_ID: TEST_APNS_KEY_ID,
      APNS_PRIVATE_KEY: certs.apnsKeyPem,
    }),
  }
  made = certs
  return certs
}

let leafCount = 0

/**
 * Another Pass Type ID certificate for the same key, signed by the same WWDR: one that expires in `days` days, or
 * one for another pass type id (a certificate that does not fit the settings).
 */
export function makePassCert({ days = 365, passTypeId = TEST_PASS_TYPE_ID } = {}): string {
  const { dir } = makeAppleCerts()
  return signLeaf(dir, `pass-${++leafCount}`, { days, passTypeId })
}

/** A Pass Type ID certificate that expires in `days` days (for the 30-day warning). */
export function makeExpiringCert(days: number): string {
  return makePassCert({ days })
}

/** A fresh key pair's private key of the given kind (a key that matches no certificate, a P-384 APNs key...). */
export function makeOtherKey(kind: 'rsa' | 'ec-p384' | 'ec-p256' = 'rsa'): string {
  const { dir } = makeAppleCerts()
  const file = `other-${++leafCount}.pem`
  const options =
    kind === 'rsa'
      ? ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']
      : ['-algorithm', 'EC', '-pkeyopt', `ec_paramgen_curve:${kind === 'ec-p384' ? 'P-384' : 'P-256'}`]
  openssl(dir, ['genpkey', ...options, '-out', file])
  return fs.readFileSync(path.join(dir, file), 'utf8')
}
