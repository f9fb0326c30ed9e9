import { commandEnv, fail } from './command.ts'

/*
 * `npm run admin -- grant <email>` / `npm run admin -- revoke <email>`: gives or takes the admin role. Works while
 * the server runs (through its socket, with the embedded database) and when it does not. Failures are one line on
 * stderr and exit code 1.
 */
const [command, email] = process.argv.slice(2)
if ((command !== 'grant' && command !== 'revoke') || !email)
  fail('usage: npm run admin -- grant <email> | revoke <email>')

const env = commandEnv()

const { openDatabase } = await import('#app/server/database-lifecycle.server.ts')
const { setAdminRole } = await import('#app/services/admin/admin.server.ts')
const database = await openDatabase(env, { role: 'command' }).catch((error: Error) =>
  fail(`Could not open the database: ${error.message}`),
)
const result = await setAdminRole(email, command === 'grant').finally(() => database.close())
if (!result.found) fail(`No user has the e-mail ${email}`)
const role = command === 'grant' ? 'an admin' : 'an owner'
console.log(
  result.changed
    ? `${email.trim().toLowerCase()} is now ${role}.`
    : `${email.trim().toLowerCase()} was already ${role}.`,
)
