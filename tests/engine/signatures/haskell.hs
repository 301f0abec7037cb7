{-# LANGUAGE OverloadedStrings #-}
-- | Encoding of time values.
module Data.Time.ToText
  ( buildDay
  , buildTimeZone
  ) where

import qualified Data.Text as T

-- | Days in a week.
daysInWeek :: Int
daysInWeek = 7

data TimeZone = TimeZone
  { offset :: !Int
  , name   :: T.Text
  }

newtype Builder = Builder { runBuilder :: String -> String }

type Pico = Integer

class Encode a where
  encode :: a -> Builder
  encodeList :: [a] -> Builder
  encodeList xs = mconcat (map encode xs)

instance Encode TimeZone where
  encode tz = buildTimeZone tz
    where
      unused = ()
  encodeList zones
    | null zones = Builder id
    | otherwise = mconcat (map encode zones)

buildDay :: Int -> Int -> Int -> Builder
buildDay y m d = Builder (\s -> show y ++ "-" ++ show m ++ "-" ++ show d ++ s)

buildTimeZone :: TimeZone -> Builder
buildTimeZone (TimeZone off _)
  | off == 0 = char 'Z'
  | otherwise = char sign <> digits h <> char ':' <> digits m
  where
    sign = if off < 0 then '-' else '+'
    (h, m) = abs off `quotRem` 60

clamp :: Ord a => a -> a -> a -> a
clamp lo hi x = max lo (min hi x)

pico :: Integer -> Pico
pico t = do
  let scaled = t * 1000
  scaled

char :: Char -> Builder
char c = Builder (c :)

digits :: Int -> Builder
digits n
  | n < 10 = char '0' <> Builder (shows n)
  | otherwise = Builder (shows n)
