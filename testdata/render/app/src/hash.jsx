import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Story } from './Story.jsx'

// Hash routing: #/story shows the article, anything else a short menu. A
// visit without a hash is sent to #/story, as apps send / to their home route.
if (!location.hash) location.replace('#/story')

function App() {
  const [route, setRoute] = useState(location.hash)
  useEffect(() => {
    const on = () => setRoute(location.hash)
    addEventListener('hashchange', on)
    return () => removeEventListener('hashchange', on)
  }, [])
  if (route === '#/story') return <main><Story title="Tide pools by hash route" lead="Shown for #/story only." /></main>
  return <nav><a href="#/story">Story</a> · <a href="#/about">About</a></nav>
}

createRoot(document.getElementById('root')).render(<App />)
