/**
 * One question of a FAQ: a <details> element, so the answer opens without JavaScript. The answer is HTML rendered
 * on the server from our own Markdown (content/pages), with any values filled in escaped.
 */
export function FaqItem({ question, answerHtml }: { question: string; answerHtml: string }) {
  return (
    <details className="faq__item">
      <summary>{question}</summary>
      <div className="faq__answer" dangerouslySetInnerHTML={{ __html: answerHtml }} />
    </details>
  )
}
