import { type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotFoundScreen } from '#app/components/error-screens.tsx'
import { notFound } from '#app/server/http-errors.server.ts'
import { getPost } from '#app/services/content/blog.server.ts'
import { TRIAL_DAYS } from '#app/utils/plan-status.ts'

export async function loader({ params }: LoaderFunctionArgs) {
  const post = getPost(params.slug ?? '')
  if (!post) throw notFound('Post not found')
  return { post, trialDays: TRIAL_DAYS }
}

export default function BlogPost() {
  const { post, trialDays } = useLoaderData<typeof loader>()
  return (
    <main className="container page">
      <article className="post">
        <p className="back-link-row">
          <Link to="/blog" className="back-link">
            <span aria-hidden="true">←</span> All posts
          </Link>
        </p>
        <header className="page-header">
          <h1>{post.title}</h1>
          <p className="post-meta">
            <time dateTime={post.date}>{post.dateLabel}</time> · {post.readingMinutes} min read · {post.author}
          </p>
          <p className="lead">{post.description}</p>
        </header>
        <div className="prose" dangerouslySetInnerHTML={{ __html: post.html }} />
        <aside className="post-cta">
          <h2>Try it at your counter</h2>
          <p>Design a stamp card and print its QR code today. Free for {trialDays} days, no payment details needed.</p>
          <Link to="/sign-up" className="button">
            Start your free trial
          </Link>
        </aside>
      </article>
    </main>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data
    ? [{ title: `${data.post.title} — Stampwise` }, { name: 'description', content: data.post.description }]
    : [{ title: 'Post not found — Stampwise' }]

export function ErrorBoundary() {
  // A missing post shows the not-found page inside the site chrome; anything else goes on to the root boundary.
  return <GeneralErrorBoundary statusHandlers={{ 404: () => <NotFoundScreen /> }} passOnOthers />
}
