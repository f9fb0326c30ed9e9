import { Link } from '@remix-run/react'
import { FaqItem } from '#app/components/faq-item.tsx'
import { type FaqTopic } from '#app/services/content/pages.server.ts'

export function HelpCenter({ topics }: { topics: FaqTopic[] }) {
  return (
    <section id="help" className="section" aria-labelledby="help-title">
      <div className="container">
        <header className="section-header">
          <p className="eyebrow">Help center</p>
          <h2 id="help-title">Questions owners ask us</h2>
          <p className="lead">
            Short answers to what we hear most. Still stuck? <Link to="/contacts">Contact support</Link>.
          </p>
        </header>
        <div className="faq">
          {topics.map((group) => (
            <div key={group.topic} className="faq__group">
              <h3>{group.topic}</h3>
              {group.items.map((item) => (
                <FaqItem key={item.question} {...item} />
              ))}
            </div>
          ))}
        </div>
      </div>
    </section>
  )
}
