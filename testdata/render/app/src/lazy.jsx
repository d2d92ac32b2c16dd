import { useEffect, useRef, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Story } from './Story.jsx'

// Lazy images: each figure swaps in its source when it scrolls into view.
function LazyFigure({ src, alt }) {
  const ref = useRef(null)
  const [shown, setShown] = useState(false)
  useEffect(() => {
    const io = new IntersectionObserver((es) => es.forEach((e) => e.isIntersecting && setShown(true)))
    io.observe(ref.current)
    return () => io.disconnect()
  }, [])
  return (
    <figure ref={ref}>
      <img loading="lazy" src={shown ? src : undefined} data-src={src} alt={alt} width="640" height="360" />
      <figcaption>{alt}</figcaption>
    </figure>
  )
}

createRoot(document.getElementById('root')).render(
  <main>
    <LazyFigure src="/img/pool-1.jpg" alt="A pool at low tide" />
    <Story title="Tide pools with lazy pictures" lead="Pictures load as they scroll into view." />
    <LazyFigure src="/img/pool-2.jpg" alt="An anemone, closed" />
  </main>,
)
