import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'

// Never settles: the text changes and a request is in flight all the time.
function App() {
  const [ticks, setTicks] = useState([])
  useEffect(() => {
    const t = setInterval(() => {
      fetch('/api/article.json?t=' + Date.now()).then(() => setTicks((x) => [...x, Date.now()]))
    }, 60)
    return () => clearInterval(t)
  }, [])
  return <main><h1>Live ticker</h1>{ticks.map((t) => <p key={t}>Tick {t} arrived and the page changed again.</p>)}</main>
}

createRoot(document.getElementById('root')).render(<App />)
