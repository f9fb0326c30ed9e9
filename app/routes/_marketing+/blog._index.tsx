import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { listPosts } from '#app/services/content/blog.server.ts'

export async function loader() {
  return { posts: listPosts() }
}

export default function BlogIndex() {
  const { posts } = useLoaderData<typeof loader>()
  return (
    <main className="container page">
      <header className="page-header">
        <p className="eyebrow">Blog</p>
        <h1>The Stampwise blog</h1>
        <p className="lead">
          Practical ideas for loyalty cards, rewards and customer messages, for small-business owners.
        </p>
      </header>
      <ul className="post-list" role="list">
        {posts.map((post) => (
          <li key={post.slug} className="post-card">
            <h2>
              <Link to={`/blog/${post.slug}`}>{post.title}</Link>
            </h2>
            <p className="post-meta">
              <time dateTime={post.date}>{post.dateLabel}</time> · {post.readingMinutes} min read · {post.author}
            </p>
            <p>{post.description}</p>
          </li>
        ))}
      </ul>
    </main>
  )
}

export const meta: MetaFunction = () => [
  { title: 'Blog — Stampwise' },
  { name: 'description', content: 'Practical ideas for loyalty cards, rewards and customer messages.' },
]
