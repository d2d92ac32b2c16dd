import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Story } from './Story.jsx'

// A cookie consent overlay over the article, as many sites show.
function Consent() {
  const [open, setOpen] = useState(true)
  if (!open) return null
  return (
    <div id="cookie-consent" className="cookie-banner" role="dialog" aria-label="Cookie consent"
      style={{ position: 'fixed', inset: 0, background: 'rgba(0,0,0,.6)', zIndex: 1000 }}>
      <div style={{ background: '#fff', margin: '20vh auto', padding: 24, maxWidth: 480 }}>
        <h2>We value your privacy</h2>
        <p>
          We and our 842 partners use cookies and similar technologies to store and access information on your
          device, to personalise ads and content, to measure ad and content performance, to understand our
          audience and to develop our products. You can accept all cookies or manage your choices at any time.
        </p>
        <button onClick={() => setOpen(false)}>Accept all</button> <button onClick={() => setOpen(false)}>Manage choices</button>
      </div>
    </div>
  )
}

createRoot(document.getElementById('root')).render(
  <>
    <Consent />
    <main><Story title="Tide pools behind a banner" lead="The article sits under a consent overlay." /></main>
  </>,
)
