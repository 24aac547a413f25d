INSTALLED_APPS = ["blog", "shop", "api"]
ROOT_URLCONF = "mysite.urls"
