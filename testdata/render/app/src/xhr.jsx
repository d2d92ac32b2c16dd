import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Story } from './Story.jsx'

// The article arrives by XHR some time after the page loaded.
function App() {
  const [data, setData] = useState(null)
  useEffect(() => {
    const t = setTimeout(() => {
      fetch('/api/article.json').then((r) => r.json()).then(setData)
    }, 800)
    return () => clearTimeout(t)
  }, [])
  if (!data) return <p>Loading…</p>
  return <main><Story title={data.title} lead={data.lead} /></main>
}

createRoot(document.getElementById('root')).render(<App />)
