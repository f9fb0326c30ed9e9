import { useLoaderData } from '@remix-run/react'
import { listTariffs } from '#models/tariff.server.ts'

export async function loader() {
  return { tariffs: await listTariffs() }
}

export default function Landing() {
  const { tariffs } = useLoaderData<typeof loader>()
  return (
    <main className="container">
      <h1>Stampwise</h1>
      <ul>
        {tariffs.map((t) => (
          <li key={t.tier}>{t.name}</li>
        ))}
      </ul>
    </main>
  )
}
